package dev.dml.ray.cluster;

import dev.dml.DmlEnv;
import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverChannel.Kind;
import dev.dml.ray.cluster.DriverChannel.Message;
import dev.dml.ray.cluster.DriverChannel.RemoteError;
import io.ray.api.Ray;
import java.io.IOException;
import java.io.NotSerializableException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The entry point of a driver process: the child JVM, started by {@link DriverProcess}, in
 * which {@code Ray.init()} runs. Not for direct use.
 *
 * <p>It connects back to the kernel over loopback (port in {@code args[0]}, token in the
 * environment variable {@code DML_DRIVER_TOKEN}), initialises Ray from the system properties it was
 * started with, then runs the {@link DriverTask}s it receives, each on its own thread. When
 * the kernel closes the channel or goes away, it closes what tasks registered, shuts Ray
 * down (Ray then ends this job's actors) and exits.
 */
public final class DriverMain {

    private static final String NATIVE_LIB = "libcore_worker_library_java.so";

    private final DriverChannel channel;
    private final DriverResources resources;
    private final Map<Long, Future<?>> running = new ConcurrentHashMap<>();
    /** The running tasks that outlive the kernel, and until when (nanoTime) each may. */
    private final Map<Future<?>, Long> outliving = new ConcurrentHashMap<>();
    private final ExecutorService pool;
    /** What each task said of {@link DriverTask#outlivesKernel()}, until noted. */
    private final Map<Long, Duration> lifetimes = new ConcurrentHashMap<>();

    private DriverMain(DriverChannel channel, String address) {
        this.channel = channel;
        this.resources = new DriverResources(address);
        AtomicInteger n = new AtomicInteger();
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "dml-driver-task-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Runs the driver.
     *
     * @param args {@code args[0]}: the kernel's loopback port
     */
    public static void main(String[] args) {
        int code = 1;
        try {
            code = run(Integer.parseInt(args[0]),
                    DmlEnv.system().value(DmlEnv.DRIVER_TOKEN).orElse(null));
        } catch (Throwable t) {
            t.printStackTrace();
        } finally {
            System.out.flush();
            System.err.flush();
            Runtime.getRuntime().halt(code);
        }
    }

    private static int run(int port, String token) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 10_000);
        DriverChannel channel = new DriverChannel(socket);
        channel.send(Kind.HELLO, ProcessHandle.current().pid(), token);
        boolean local = "LOCAL".equalsIgnoreCase(System.getProperty("ray.run-mode"));
        String address = local ? "local" : System.getProperty("ray.address", "");
        try {
            Ray.init();
        } catch (Throwable t) {
            t.printStackTrace();
            channel.send(new Message(Kind.FAILED, 0, null,
                    DriverChannel.serialize(new RemoteError(t))));
            channel.close();
            return 3;
        }
        deleteNativeLibCopy(nativeLibDir());
        DriverMain driver = new DriverMain(channel, address);
        channel.send(Kind.READY, 0, address);
        try {
            driver.serve();
            driver.awaitOutliving();
        } finally {
            driver.resources.closeAll();
            Ray.shutdown();
            channel.close();
        }
        return 0;
    }

    private void serve() {
        while (true) {
            Message m;
            try {
                m = channel.receive();
            } catch (DriverChannel.MalformedFrame e) {
                System.err.println("dml driver: refused a malformed frame: " + e.getMessage());
                continue;
            } catch (IOException e) {
                System.err.println("dml driver: channel broken: " + e);
                return;
            }
            if (m == null || m.kind() == Kind.SHUTDOWN) {
                return;
            }
            if (m.kind() == Kind.REQUEST) {
                running.put(m.id(), pool.submit(() -> execute(m)));
                outlive(m.id());
            } else if (m.kind() == Kind.CANCEL) {
                Future<?> f = running.get(m.id());
                if (f != null) {
                    f.cancel(true);
                }
            }
        }
    }

    /** Notes a task that outlives the kernel, once {@link #execute} has read it. */
    private void outlive(long id) {
        Future<?> f = running.get(id);
        Duration d = f == null ? null : lifetimes.remove(id);
        if (d != null && !d.isZero()) {
            outliving.put(f, System.nanoTime() + Math.min(d.toNanos(), Long.MAX_VALUE / 4));
        }
    }

    /**
     * After the kernel has gone: waits for the tasks that outlive it, each at most as long as
     * it said ({@link DriverTask#outlivesKernel()}), then cancels what is left.
     */
    private void awaitOutliving() {
        for (Map.Entry<Future<?>, Long> e : outliving.entrySet()) {
            long left = e.getValue() - System.nanoTime();
            try {
                if (left > 0) {
                    e.getKey().get(left, java.util.concurrent.TimeUnit.NANOSECONDS);
                }
            } catch (java.util.concurrent.TimeoutException late) {
                System.err.println("dml driver: a detached task outlived its limit; ending it");
                e.getKey().cancel(true);
            } catch (InterruptedException stop) {
                Thread.currentThread().interrupt();
                return;
            } catch (java.util.concurrent.ExecutionException
                    | java.util.concurrent.CancellationException ended) {
                // ended: execute() logged how
            }
        }
    }

    private void execute(Message request) {
        Message reply;
        try {
            DriverTask<?> task = (DriverTask<?>) DriverChannel.deserialize(request.payload());
            Duration life = task.outlivesKernel();
            if (!life.isZero()) {
                lifetimes.put(request.id(), life);
                outlive(request.id());
            }
            System.err.println("dml driver: #" + request.id() + " " + task.getClass().getName());
            Object result = task.run(new CallContext(resources, request.id()));
            byte[] bytes;
            try {
                bytes = DriverChannel.serialize(result);
            } catch (NotSerializableException e) {
                throw new DmlException(
                        task.getClass().getSimpleName() + " returned a "
                                + result.getClass().getName() + ", which is not Serializable.",
                        "Return a Serializable value (a plain class, an array, a List).", e);
            }
            reply = new Message(Kind.RESULT, request.id(), null, bytes);
        } catch (Throwable t) {
            t.printStackTrace();
            reply = error(request.id(), t);
        } finally {
            running.remove(request.id());
        }
        try {
            channel.send(reply);
        } catch (IOException e) {
            System.err.println("dml driver: cannot reply to #" + request.id() + ": " + e);
        }
    }

    private static Message error(long id, Throwable t) {
        try {
            return new Message(Kind.ERROR, id, null, DriverChannel.serialize(new RemoteError(t)));
        } catch (IOException e) {
            return new Message(Kind.ERROR, id, String.valueOf(t), null);
        }
    }

    /** Where Ray copied its native library for this JVM, from {@code /proc/self/maps}. */
    private static Path nativeLibDir() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/maps"),
                    StandardCharsets.ISO_8859_1)) {
                int at = line.indexOf('/');
                if (at >= 0 && line.endsWith(NATIVE_LIB)) {
                    return Path.of(line.substring(at)).getParent();
                }
            }
        } catch (IOException e) {
            // not Linux: nothing to clean
        }
        return null;
    }

    /**
     * Deletes the 30-40 MB copy of Ray's native library that each driver makes under {@code
     * /tmp/ray/<millis>} (LOCAL mode: {@code /tmp/ray/session_local_mode_*}, which holds nothing
     * else) and never removes. The library is mapped already, so deleting the file is safe, and
     * doing it right after {@code Ray.init()} leaves nothing behind even if the driver is killed.
     */
    private static void deleteNativeLibCopy(Path dir) {
        if (dir == null || dir.getParent() == null || !dir.getParent().endsWith("ray")) {
            return;
        }
        String name = dir.getFileName().toString();
        if (name.matches("\\d+") || name.startsWith("session_local_mode_")) {
            Processes.deleteTree(dir);
        }
    }

    /** One call's view of the driver: the shared resources, plus events tagged with the call. */
    private final class CallContext extends ForwardingContext {
        private final long callId;

        CallContext(DriverResources resources, long callId) {
            super(resources);
            this.callId = callId;
        }

        @Override
        public void emit(java.io.Serializable event) {
            try {
                channel.send(new Message(Kind.EVENT, callId, null,
                        DriverChannel.serialize(event)));
            } catch (IOException e) {
                System.err.println("dml driver: event of #" + callId + " dropped: " + e);
            }
        }
    }
}

package dev.dml.ray.cluster;

import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverChannel.Kind;
import dev.dml.ray.cluster.DriverChannel.Message;
import dev.dml.ray.cluster.DriverChannel.RemoteError;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Ray driver in a child JVM, owned by the kernel: {@code Ray.init()} and every Ray call run
 * there, never in the kernel, so no Ray failure (a native abort, a lost cluster) can end the
 * kernel. If the child dies, pending and later calls fail with a {@link DmlException}.
 *
 * <p>Open one with {@link RayCluster#openDriver()}; send it {@link DriverTask}s. Closing it
 * ends the child; Ray then ends the actors of its job.
 *
 * <pre>{@code
 * try (RayCluster cluster = RayCluster.open(ClusterSpec.defaults());
 *      DriverProcess driver = cluster.openDriver()) {
 *     float[] mean = driver.call(new MeanOfRanks());   // see DriverTask
 * }
 * }</pre>
 */
public final class DriverProcess implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DriverProcess.class);

    private final Process process;
    private final DriverChannel channel;
    private final Path log;
    private final String address;
    private final Duration callTimeout;
    private final Runnable onClose;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile String deathReason;
    /** How this driver's code reached the cluster; set by {@link RayCluster} once stored. */
    volatile CodeShipment code;

    private record Pending(CompletableFuture<Object> future, String task,
            Consumer<Object> events) {}

    DriverProcess(Process process, DriverChannel channel, Path log, String address,
            Duration callTimeout, Runnable onClose) {
        this.process = process;
        this.channel = channel;
        this.log = log;
        this.address = address;
        this.callTimeout = callTimeout;
        this.onClose = onClose;
        Thread reader = new Thread(this::readReplies, "dml-driver-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Sends a task to the driver and returns at once.
     *
     * @param task the task; serialized now
     * @param <R> the result type
     * @return the result, or a {@link DmlException} when the task threw or the driver died
     */
    public <R> CompletableFuture<R> submit(DriverTask<R> task) {
        return submit(task, event -> { });
    }

    /**
     * Sends a task to the driver and returns at once; the events it emits while it runs
     * ({@link DriverContext#emit}) go to {@code events}, in order, on the driver's reader thread,
     * all before the future completes. A listener that throws loses that event, not the call.
     *
     * @param task the task; serialized now
     * @param events receives each event the task emits
     * @param <R> the result type
     * @return the result, or a {@link DmlException} when the task threw or the driver died
     */
    @SuppressWarnings("unchecked")
    public <R> CompletableFuture<R> submit(DriverTask<R> task, Consumer<Object> events) {
        String name = task.getClass().getSimpleName();
        if (closed.get()) {
            return CompletableFuture.failedFuture(new DmlException(
                    "This driver process is closed; " + name + " was not sent.",
                    "Open a new driver with RayCluster.openDriver()."));
        }
        if (deathReason != null) {
            return CompletableFuture.failedFuture(dead(name));
        }
        byte[] bytes;
        try {
            bytes = DriverChannel.serialize(task);
        } catch (IOException e) {
            return CompletableFuture.failedFuture(new DmlException(
                    name + " cannot be sent to the driver: " + e + ".",
                    "A task and all its fields must be Serializable.", e));
        }
        long id = ids.incrementAndGet();
        CompletableFuture<Object> f = new CompletableFuture<>();
        pending.put(id, new Pending(f, name, events));
        try {
            channel.send(new Message(Kind.REQUEST, id, null, bytes));
        } catch (IOException e) {
            pending.remove(id);
            f.completeExceptionally(deathReason != null ? dead(name) : new DmlException(
                    "Lost the connection to the driver process (pid " + process.pid()
                            + ") while sending " + name + ": " + e.getMessage() + ".",
                    "Open a new driver with RayCluster.openDriver(); its log is " + log + ".",
                    e));
        }
        if (deathReason != null && pending.remove(id) != null) {
            f.completeExceptionally(dead(name));
        }
        return (CompletableFuture<R>) (CompletableFuture<?>) f;
    }

    /**
     * Runs a task in the driver and waits for its result, at most {@link
     * DriverSpec#callTimeout()}.
     *
     * @param task the task
     * @param <R> the result type
     * @return its result
     * @throws DmlException when the task threw, timed out, or the driver died
     */
    public <R> R call(DriverTask<R> task) {
        return call(task, callTimeout);
    }

    /**
     * Runs a task in the driver and waits for its result; on timeout the task is
     * interrupted.
     *
     * @param task the task
     * @param timeout how long to wait
     * @param <R> the result type
     * @return its result
     * @throws DmlException when the task threw, timed out, or the driver died
     */
    public <R> R call(DriverTask<R> task, Duration timeout) {
        CompletableFuture<R> f = submit(task);
        String name = task.getClass().getSimpleName();
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof DmlException) {
                throw (DmlException) e.getCause();
            }
            throw new DmlException(name + " failed: " + e.getCause() + ".",
                    "See the driver log " + log + ".", e.getCause());
        } catch (TimeoutException e) {
            cancel(f);
            throw new DmlException(
                    name + " did not finish within " + Processes.describe(timeout)
                            + " in the driver.",
                    "Pass a longer timeout to DriverProcess.call, or see the driver log " + log
                            + ".");
        } catch (InterruptedException e) {
            cancel(f);
            Thread.currentThread().interrupt();
            throw new DmlException(name + " was interrupted.", "Run it again if needed.", e);
        }
    }

    private void cancel(CompletableFuture<?> f) {
        for (Map.Entry<Long, Pending> e : pending.entrySet()) {
            if (e.getValue().future() == f) {
                try {
                    channel.send(Kind.CANCEL, e.getKey(), null);
                } catch (IOException ignored) {
                    // the driver is gone; nothing to cancel
                }
            }
        }
    }

    /**
     * Hands each reply to its call, on the reader thread. However the reading ends (the driver
     * exits, a malformed frame, any failure in here), every pending call fails at once rather
     * than waiting for its timeout; a driver whose replies can no longer be read is killed, as
     * nothing it sends could be trusted to line up again.
     */
    private void readReplies() {
        String broke = null;
        try {
            while (true) {
                Message m;
                try {
                    m = channel.receive();
                } catch (DriverChannel.MalformedFrame e) {
                    LOG.warn("driver {} sent a malformed frame, refused: {}", process.pid(),
                            e.getMessage());
                    continue;
                }
                if (m == null) {
                    break;
                }
                dispatch(m);
            }
        } catch (SocketException | EOFException closed) {
            // the driver exited or its connection broke: handled as an exit below
        } catch (IOException e) {
            broke = "sent a frame the kernel could not read (" + e.getMessage() + ")";
        } catch (RuntimeException | Error e) {
            broke = "sent a reply the kernel failed on (" + e + ")";
        }
        if (broke != null && !closed.get()) {
            LOG.error("driver {} {}; killing it", process.pid(), broke);
            Processes.killTree(process.toHandle(), Duration.ofSeconds(2));
        }
        Processes.awaitExit(List.of(process.toHandle()), Duration.ofSeconds(5));
        deathReason = broke != null ? broke : process.isAlive() ? "closed its connection"
                : "exited with code " + process.exitValue();
        for (Long id : new ArrayList<>(pending.keySet())) {
            Pending p = pending.remove(id);
            if (p != null) {
                p.future().completeExceptionally(dead(p.task()));
            }
        }
    }

    private void dispatch(Message m) {
        if (m.kind() == Kind.EVENT) {
            deliverEvent(pending.get(m.id()), m);
            return;
        }
        Pending p = pending.remove(m.id());
        if (p == null) {
            return;
        }
        if (m.kind() == Kind.RESULT) {
            complete(p, m);
        } else if (m.kind() == Kind.ERROR) {
            p.future().completeExceptionally(remoteFailure(p.task(), m));
        } else {
            p.future().completeExceptionally(new DmlException("The driver answered call "
                    + m.id() + " with " + m.kind() + ".", "See the driver log " + log + "."));
        }
    }

    private static void deliverEvent(Pending p, Message m) {
        if (p == null) {
            return; // the call was given up on; its late events have no listener
        }
        try {
            p.events().accept(DriverChannel.deserialize(m.payload()));
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            LOG.warn("event of {} dropped: {}", p.task(), e.toString());
        }
    }

    private static void complete(Pending p, Message m) {
        try {
            p.future().complete(DriverChannel.deserialize(m.payload()));
        } catch (IOException | ClassNotFoundException | RuntimeException e) {
            p.future().completeExceptionally(new DmlException(
                    "The result of " + p.task() + " cannot be read in the kernel: " + e + ".",
                    "Return a type whose class the kernel has on its class path.", e));
        }
    }

    private DmlException remoteFailure(String task, Message m) {
        RemoteError e = readError(m);
        DmlException trace = new RemoteTrace(e.trace);
        if (e.dmlWhat != null) {
            return new DmlException(e.dmlWhat, e.dmlHint, trace);
        }
        return new DmlException(
                task + " failed in the driver: " + simpleName(e.type) + ": "
                        + DmlException.literal(DmlException.firstLine(e.message)),
                "The driver's stack trace is the cause; its log is " + log + ".", trace);
    }

    static RemoteError readError(Message m) {
        try {
            return (RemoteError) DriverChannel.deserialize(m.payload());
        } catch (IOException | ClassNotFoundException | RuntimeException ex) {
            return new RemoteError(new IllegalStateException(String.valueOf(m.text())));
        }
    }

    private static String simpleName(String type) {
        return type.substring(type.lastIndexOf('.') + 1);
    }

    private DmlException dead(String task) {
        return new DmlException(
                "The Ray driver process (pid " + process.pid() + ") " + deathReason + "; "
                        + task + " did not complete.",
                "Open a new driver with RayCluster.openDriver(); its log is " + log + ".");
    }

    /**
     * Returns the child's process id.
     *
     * @return the pid of the driver JVM
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Returns whether the driver process still runs.
     *
     * @return {@code true} while it runs
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Returns the driver's log: its stdout and stderr, Ray's driver output included.
     *
     * @return the log file
     */
    public Path log() {
        return log;
    }

    /**
     * Returns how this driver's code packages reached an external cluster, whose workers load
     * dml from them; empty on an embedded head, whose workers read the jars in place.
     */
    public Optional<CodeShipment> codeShipment() {
        return Optional.ofNullable(code);
    }

    /**
     * Returns the address of the cluster the driver is attached to.
     *
     * @return {@code host:port}, or {@code local} in LOCAL mode
     */
    public String address() {
        return address;
    }

    /**
     * Ends the driver: asks it to close its resources and shut Ray down, then kills it if it
     * has not exited within 15 s. Pending calls fail. Safe to call more than once.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (process.isAlive()) {
            try {
                channel.send(Kind.SHUTDOWN, 0, null);
            } catch (IOException e) {
                // already gone
            }
            if (!Processes.awaitExit(List.of(process.toHandle()), Duration.ofSeconds(15))) {
                Processes.killTree(process.toHandle(), Duration.ofSeconds(5));
            }
        }
        channel.close();
        onClose.run();
    }

    /**
     * Lets the driver go on alone, to finish what outlives the kernel ({@link DriverTask}).
     */
    public void release() {
        if (closed.compareAndSet(false, true)) {
            channel.close();
            onClose.run();
        }
    }

    /** The driver's stack trace, carried as the cause of a failure. */
    static final class RemoteTrace extends DmlException {
        private static final long serialVersionUID = 1L;

        RemoteTrace(String trace) {
            super("Stack trace in the driver process:\n" + DmlException.literal(trace), null);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this;
        }
    }
}

package dev.dml.ray.cluster;

import dev.dml.DmlEnv;
import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverChannel.Kind;
import dev.dml.ray.cluster.DriverChannel.Message;
import dev.dml.ray.cluster.DriverChannel.RemoteError;
import dev.dml.ray.net.Frames;
import dev.dml.ray.net.GuardedServer;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts a driver child JVM: {@code java ... DriverMain <port>} in a new session, its output in
 * a log file, then a loopback handshake (token check, then READY or FAILED from {@code
 * Ray.init()}).
 */
final class DriverLauncher {

    private static final Logger LOG = LoggerFactory.getLogger(DriverLauncher.class);

    private DriverLauncher() {}

    /**
     * Starts the child JVM and waits until Ray is initialised in it.
     *
     * @param java the java executable
     * @param classpath the child's class path, in order
     * @param properties system properties for the child ({@code ray.address}, ...)
     * @param spec JVM options and timeouts
     * @param log where the child's stdout and stderr go
     * @param onClose runs once when this driver is closed
     */
    static DriverProcess launch(Path java, List<Path> classpath, Map<String, String> properties,
            DriverSpec spec, Path log, Runnable onClose) {
        byte[] secret = new byte[16];
        new SecureRandom().nextBytes(secret);
        String token = HexFormat.of().formatHex(secret);
        try (ServerSocket server = new ServerSocket(0, 4, InetAddress.getLoopbackAddress())) {
            List<String> task = new ArrayList<>(Processes.newSessionPrefix());
            task.add(java.toString());
            task.addAll(JobJvms.ADD_OPENS);
            task.addAll(spec.jvmOptions());
            properties.forEach((k, v) -> task.add("-D" + k + "=" + v));
            task.add("-cp");
            task.add(Classpaths.join(classpath));
            task.add(DriverMain.class.getName());
            task.add(Integer.toString(server.getLocalPort()));
            ProcessBuilder pb = new ProcessBuilder(task).redirectErrorStream(true)
                    .redirectOutput(log.toFile());
            pb.environment().put(DmlEnv.DRIVER_TOKEN, token);
            pb.environment().putAll(JobJvms.workerEnv());
            pb.environment().remove(ClusterAddress.ENV);
            Process p = pb.start();
            p.getOutputStream().close();
            try {
                Handshake h = handshake(server, p, token, spec.startTimeout(), log);
                return new DriverProcess(p, h.channel(), log, h.address(), spec.callTimeout(),
                        onClose);
            } catch (RuntimeException | IOException e) {
                Processes.killTree(p.toHandle(), Duration.ofSeconds(2));
                throw e;
            }
        } catch (IOException e) {
            throw new DmlException(
                    "Cannot start the Ray driver process: " + e.getMessage() + ".",
                    "See its log " + log + ".", e);
        }
    }

    record Handshake(DriverChannel channel, String address) {}

    /** Connections at once while the driver starts: the driver, and a few strays. */
    private static final int MAX_CONNECTIONS = 16;
    /** How long a connection may take to send its HELLO; the driver sends it at once. */
    private static final Duration HELLO_WAIT = Duration.ofSeconds(10);

    /**
     * Accepts the child's connection, checks its token, and waits for READY or FAILED. Anything
     * else that connects to the port (a stray or hostile local process) is refused without
     * holding the driver up: each connection is greeted on its own, its first frame must be a
     * short HELLO whose token matches, read as plain bytes, before any Java deserialization
     * happens on the channel, and one that stays silent is closed after {@link #HELLO_WAIT}.
     */
    static Handshake handshake(ServerSocket server, Process p, String token, Duration timeout,
            Path log) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        byte[] expected = token.getBytes(StandardCharsets.UTF_8);
        CompletableFuture<DriverChannel> proven = new CompletableFuture<>();
        GuardedServer.Limits limits = new GuardedServer.Limits(MAX_CONNECTIONS,
                timeout.compareTo(HELLO_WAIT) < 0 ? timeout : HELLO_WAIT);
        DriverChannel channel;
        try (GuardedServer<DriverChannel> guard = GuardedServer.open("dml-driver-start", server,
                limits, c -> hello(c, expected, p), (c, driver) -> {
                    c.handOver();
                    if (!proven.complete(driver)) {
                        driver.close(); // the token was presented twice: keep the first
                    }
                }, proven::completeExceptionally)) {
            channel = awaitDriver(proven, p, deadline, timeout, log);
        }
        try {
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            channel.setReadTimeout((int) Math.min(Integer.MAX_VALUE, left));
            Message ready = awaitReady(channel, p, log);
            channel.setReadTimeout(0);
            return new Handshake(channel, ready.text());
        } catch (SocketTimeoutException e) {
            channel.close();
            throw startFailed(p, "did not initialise Ray within " + timeout.toSeconds() + " s",
                    log);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /** The driver's channel once it proved itself, while the child lives and time is left. */
    private static DriverChannel awaitDriver(CompletableFuture<DriverChannel> proven, Process p,
            long deadline, Duration timeout, Path log) throws IOException {
        while (true) {
            try {
                return proven.get(200, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (!p.isAlive()) {
                    throw startFailed(p, "exited with code " + p.exitValue(), log);
                }
                if (System.nanoTime() > deadline) {
                    throw startFailed(p, "did not start within " + timeout.toSeconds() + " s",
                            log);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while the driver started");
            } catch (ExecutionException e) {
                throw new IOException("its port failed: " + e.getCause().getMessage(),
                        e.getCause());
            }
        }
    }

    /** A connection's first frame: the driver's channel, or null for anything else. */
    private static DriverChannel hello(GuardedServer.Connection c, byte[] token, Process p)
            throws IOException {
        DriverChannel channel = new DriverChannel(c.socket());
        String refused = refusal(channel.receive(DriverChannel.MAX_HELLO_FRAME), token);
        if (refused != null) {
            LOG.warn("refused a connection from {} to driver {}'s port: it {}",
                    c.socket().getRemoteSocketAddress(), p.pid(), refused);
            return null;
        }
        return channel;
    }

    /** Why a first frame is refused, or null for the driver's HELLO with the right token. */
    private static String refusal(Message hello, byte[] token) {
        if (hello == null) {
            return "closed the connection";
        }
        if (hello.kind() != Kind.HELLO) {
            return "sent " + hello.kind() + " before HELLO";
        }
        byte[] given = hello.text() == null ? new byte[0]
                : hello.text().getBytes(StandardCharsets.UTF_8);
        return Frames.sameToken(given, token) ? null : "sent a wrong token";
    }

    private static Message awaitReady(DriverChannel channel, Process p, Path log)
            throws IOException {
        Message m = channel.receive();
        if (m == null) {
            Processes.awaitExit(List.of(p.toHandle()), Duration.ofSeconds(5));
            String code = p.isAlive() ? "closed the connection" : "exited with code "
                    + p.exitValue();
            throw startFailed(p, code + " during Ray.init()", log);
        }
        if (m.kind() == Kind.FAILED) {
            RemoteError e = DriverProcess.readError(m);
            throw new DmlException(
                    "Ray.init() failed in the driver process: "
                            + DmlException.firstLine(e.message) + ".",
                    "Check that this machine is a node of the cluster; see " + log + ".");
        }
        return m;
    }

    private static DmlException startFailed(Process p, String why, Path log) {
        String last = Processes.tail(log, 1).trim();
        return new DmlException(
                "The Ray driver process (pid " + p.pid() + ") " + why
                        + (last.isEmpty() ? "." : ": " + last),
                "See its log " + log + ".");
    }
}

package dev.dml.ray.cluster;

import dev.dml.DmlEnv;
import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverChannel.Kind;
import dev.dml.ray.cluster.DriverChannel.Message;
import dev.dml.ray.cluster.DriverChannel.RemoteError;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
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

    /**
     * Accepts the child's connection, checks its token, and waits for READY or FAILED. Anything
     * else that connects to the port first (a stray or hostile local process) is refused: its
     * first frame must be a short HELLO whose token matches, read as plain bytes, before any
     * Java deserialization happens on the channel.
     */
    static Handshake handshake(ServerSocket server, Process p, String token, Duration timeout,
            Path log) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        server.setSoTimeout(200);
        while (true) {
            if (!p.isAlive()) {
                throw startFailed(p, "exited with code " + p.exitValue(), log);
            }
            if (System.nanoTime() > deadline) {
                throw startFailed(p, "did not start within " + timeout.toSeconds() + " s", log);
            }
            Socket s;
            try {
                s = server.accept();
            } catch (SocketTimeoutException e) {
                continue;
            }
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
            s.setSoTimeout((int) Math.min(Integer.MAX_VALUE, left));
            DriverChannel channel = new DriverChannel(s);
            String refused;
            try {
                refused = refusal(channel.receive(DriverChannel.MAX_HELLO_FRAME), token);
            } catch (SocketTimeoutException e) {
                refused = "sent no HELLO in time";
            } catch (IOException e) {
                refused = "sent " + e.getMessage();
            }
            if (refused != null) {
                LOG.warn("refused a connection from {} to driver {}'s port: it {}",
                        s.getRemoteSocketAddress(), p.pid(), refused);
                channel.close();
                continue;
            }
            try {
                Message ready = awaitReady(channel, p, log);
                s.setSoTimeout(0);
                return new Handshake(channel, ready.text());
            } catch (SocketTimeoutException e) {
                channel.close();
                throw startFailed(p, "did not initialise Ray within " + timeout.toSeconds()
                        + " s", log);
            }
        }
    }

    /** Why a first frame is refused, or null for the driver's HELLO with the right token. */
    private static String refusal(Message hello, String token) {
        if (hello == null) {
            return "closed the connection";
        }
        if (hello.kind() != Kind.HELLO) {
            return "sent " + hello.kind() + " before HELLO";
        }
        byte[] given = hello.text() == null ? new byte[0]
                : hello.text().getBytes(StandardCharsets.UTF_8);
        // constant time: how far a guess matched must not show in how long the check took
        return MessageDigest.isEqual(given, token.getBytes(StandardCharsets.UTF_8)) ? null
                : "sent a wrong token";
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
                    "Ray.init() failed in the driver process: " + DmlException.firstLine(e.message) + ".",
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

package dev.dml.ray.cluster;

import dev.dml.DmlException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A single-node Ray head that dml starts and owns.
 *
 * <p>It runs {@code ray start --head --block} (through {@code embedded_head.py}, without the
 * processes a loopback head never serves: the Ray Client server, the API server, the dashboard
 * agent) in a new session, with its own temporary folder and free ports, so it shares nothing
 * with other clusters on the machine. With {@code --block} the launcher keeps every Ray process
 * a descendant of that one command (on Linux it adopts them as child subreaper, holding none
 * of Ray's modules itself), so {@link #close()} ends exactly this cluster: SIGTERM to the
 * command (which then stops Ray's processes), then SIGKILL to whatever of the tree is left. It
 * never runs {@code ray stop}, which would end every cluster on the host.
 */
final class EmbeddedHead implements AutoCloseable {

    /** The only address the embedded head and its processes listen on. */
    static final String LOOPBACK = "127.0.0.1";
    /** Ray's switch for clusters beyond one machine; off, Ray keeps to the loopback address. */
    static final String LOOPBACK_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER";
    /**
     * Ray's task events, for its dashboard's task list, which the embedded head does not run.
     * A job's driver calls its workers dozens of times a second, and the GCS keeps an event per
     * call (up to 100,000, then up to a million dropped attempts): about 400 MB an hour of its
     * memory in the S1 soak. The workers this head starts record none; what the driver still
     * reports is capped at a thousand.
     */
    static final Map<String, String> TASK_EVENTS_OFF = Map.of(
            "RAY_task_events_report_interval_ms", "0",
            "RAY_task_events_max_num_task_in_gcs", "1000",
            "RAY_task_events_max_dropped_task_attempts_tracked_per_job_in_gcs", "1000");

    private static final String STARTED = "Ray runtime started.";
    /** The script, in dml's jar, that runs {@code ray start} for this head. */
    static final String LAUNCHER = "embedded_head.py";

    private final Process process;
    private final Path tempDir;
    private final Path log;
    private final String address;

    private EmbeddedHead(Process process, Path tempDir, Path log, String address) {
        this.process = process;
        this.tempDir = tempDir;
        this.log = log;
        this.address = address;
    }

    /**
     * Starts the head and waits until {@code ray start} reports it running. A head that exits
     * early is tried once more: on a busy machine Ray's fixed 30 s registration wait (and the
     * raylet's wait for its agents) can run out.
     */
    static EmbeddedHead start(RayInstallation ray, ClusterSpec spec, ClusterEnv limits) {
        long deadline = System.nanoTime() + spec.startTimeout().toNanos();
        EmbeddedHead head = attempt(ray, spec, limits, deadline, false);
        return head != null ? head : attempt(ray, spec, limits, deadline, true);
    }

    /** One try; {@code null} when it exited early and {@code last} is false. */
    private static EmbeddedHead attempt(RayInstallation ray, ClusterSpec spec, ClusterEnv limits,
            long deadline, boolean last) {
        Path tempDir;
        try {
            Files.createDirectories(spec.tempRoot());
            tempDir = Files.createTempDirectory(spec.tempRoot(), "dml-ray-");
        } catch (IOException e) {
            throw new DmlException(
                    "Cannot make a temporary folder under " + spec.tempRoot() + ": " + e + ".",
                    "Pass a writable folder to ClusterSpec.optTempRoot.", e);
        }
        Path log = tempDir.resolve("ray-start.log");
        try {
            writeLauncher(tempDir);
        } catch (IOException e) {
            Processes.deleteTree(tempDir);
            throw new DmlException("Cannot write the head's launcher into " + tempDir + ": " + e
                    + ".", "Pass a writable folder to ClusterSpec.optTempRoot.", e);
        }
        List<String> cmd = new ArrayList<>(Processes.newSessionPrefix());
        cmd.addAll(command(ray, spec, limits, tempDir));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        Map<String, String> env = pb.environment();
        env.put("PATH", ray.java().getParent() + ":" + env.getOrDefault("PATH", ""));
        env.put("RAY_USAGE_STATS_ENABLED", "0");
        // Ray's ports run any code sent to them: with this and a loopback node IP, the head and
        // the processes it starts listen on 127.0.0.1 only (Ray 2.58 binds every interface
        // otherwise, whatever --node-ip-address says)
        env.put(LOOPBACK_ONLY_ENV, "0");
        env.remove(ClusterAddress.ENV);
        env.putAll(TASK_EVENTS_OFF);
        Process process;
        try {
            process = pb.start();
            process.getOutputStream().close();
        } catch (IOException e) {
            Processes.deleteTree(tempDir);
            throw new DmlException(
                    "Cannot run " + ray.python() + ": " + e.getMessage() + ".",
                    "Check that the ray command works: `ray --version`.", e);
        }
        CountDownLatch started = new CountDownLatch(1);
        Thread pump = new Thread(() -> pump(process, log, started), "dml-ray-head-log");
        pump.setDaemon(true);
        pump.start();
        if (!waitStarted(process, started, deadline)) {
            boolean exited = !process.isAlive();
            String why = exited ? "exited with code " + process.exitValue()
                    : "did not start within " + spec.startTimeout().toSeconds() + " s";
            Processes.killTree(process.toHandle(), Duration.ofSeconds(5));
            if (exited && !last && System.nanoTime() < deadline) {
                Processes.deleteTree(tempDir);
                return null;
            }
            throw new DmlException(
                    "The embedded Ray head " + why + ": " + lastLine(log) + ".",
                    "See " + log + " and " + tempDir + "/session_latest/logs.");
        }
        try {
            String address = readAddress(tempDir, log);
            Processes.stopWhenThisJvmDies(process.toHandle(), tempDir);
            return new EmbeddedHead(process, tempDir, log, address);
        } catch (RuntimeException | Error e) {
            // started half-way (no address, an interrupt): stopped here, never leaked
            Processes.killTree(process.toHandle(), Duration.ofSeconds(5));
            Processes.deleteTree(tempDir);
            throw e;
        }
    }

    /**
     * {@code ray start}, through {@value #LAUNCHER}, which leaves out the Ray Client server,
     * the API server and the dashboard agent; a count or size set in the spec wins over the
     * environment's.
     */
    static List<String> command(
            RayInstallation ray, ClusterSpec spec, ClusterEnv limits, Path tempDir) {
        List<String> cmd = new ArrayList<>(List.of(
                ray.python(), tempDir.resolve(LAUNCHER).toString(), "start", "--head", "--block",
                "--node-ip-address=" + LOOPBACK,
                "--temp-dir=" + tempDir,
                "--port=" + freePort(),
                "--node-manager-port=" + freePort(),
                "--object-manager-port=" + freePort(),
                "--dashboard-agent-listen-port=" + freePort(),
                "--dashboard-agent-grpc-port=" + freePort(),
                "--runtime-env-agent-port=" + freePort(),
                "--metrics-export-port=" + freePort(),
                "--include-dashboard=false",
                "--include-log-monitor=false",
                // no autoscaler (a Python process of about 100 MB): this head is all there is
                "--no-monitor",
                "--disable-usage-stats",
                "--log-style=record",
                "--log-color=false"));
        int cpus = spec.numCpus() > 0 ? spec.numCpus() : limits.rayCpus();
        if (cpus > 0) {
            cmd.add("--num-cpus=" + cpus);
        }
        if (spec.numGpus() >= 0) {
            cmd.add("--num-gpus=" + spec.numGpus());
        }
        long store = spec.objectStoreBytes() > 0 ? spec.objectStoreBytes()
                : limits.objectStoreBytes();
        if (store > 0) {
            cmd.add("--object-store-memory=" + store);
        }
        return cmd;
    }

    /** Copies {@value #LAUNCHER} from dml's jar into the head's folder. */
    private static void writeLauncher(Path tempDir) throws IOException {
        try (InputStream in = EmbeddedHead.class.getResourceAsStream(LAUNCHER)) {
            if (in == null) {
                throw new IOException(LAUNCHER + " is missing from dml's jar");
            }
            Files.copy(in, tempDir.resolve(LAUNCHER));
        }
    }

    /** A port that is free now; Ray binds it a moment later (a small, accepted race). */
    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK))) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void pump(Process process, Path log, CountDownLatch started) {
        try (BufferedReader in = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.write(line);
                out.write('\n');
                out.flush();
                if (line.contains(STARTED)) {
                    started.countDown();
                }
            }
        } catch (IOException e) {
            // the head's output ended
        }
    }

    private static boolean waitStarted(Process p, CountDownLatch started, long deadline) {
        try {
            while (System.nanoTime() < deadline) {
                if (started.await(200, TimeUnit.MILLISECONDS)) {
                    return true;
                }
                if (!p.isAlive()) {
                    return started.await(500, TimeUnit.MILLISECONDS);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return false;
    }

    private static String readAddress(Path tempDir, Path log) {
        Path file = tempDir.resolve("ray_current_cluster");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            try {
                String text = Files.readString(file, StandardCharsets.UTF_8).trim();
                if (!text.isEmpty()) {
                    return ClusterAddress.parse(text, file.toString()).text();
                }
            } catch (IOException e) {
                // not written yet
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        throw new DmlException(
                "The embedded Ray head started but did not write " + file + ".",
                "See " + log + "; this Ray version may record its address elsewhere.");
    }

    private static String lastLine(Path log) {
        String tail = Processes.tail(log, 1).trim();
        return tail.isEmpty() ? "no output" : tail;
    }

    /** Returns the head's GCS address, {@code ip:port}. */
    String address() {
        return address;
    }

    /** Returns the head's temporary folder (Ray's session logs are under it). */
    Path tempDir() {
        return tempDir;
    }

    /** Returns the pid of the {@code ray start --block} command that owns the head. */
    long pid() {
        return process.pid();
    }

    /** Returns the log of {@code ray start}. */
    Path log() {
        return log;
    }

    /** Returns whether the head's owning command still runs. */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Returns a snapshot of every live process of this head (workers included). */
    List<ProcessHandle> processes() {
        List<ProcessHandle> all = new ArrayList<>();
        if (process.isAlive()) {
            all.add(process.toHandle());
            process.toHandle().descendants().forEach(all::add);
        }
        return all;
    }

    /** Stops the head and deletes its temporary folder. Safe to call more than once. */
    @Override
    public synchronized void close() {
        List<ProcessHandle> left = Processes.killTree(process.toHandle(), Duration.ofSeconds(15));
        if (left.isEmpty()) {
            Processes.deleteTree(tempDir);
        }
    }
}

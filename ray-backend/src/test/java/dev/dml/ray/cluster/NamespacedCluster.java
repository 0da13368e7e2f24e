package dev.dml.ray.cluster;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A real multi-node Ray cluster on one machine, for tests: a head on the host and worker nodes
 * that each have their own network namespace (an IP on the fixture's bridge, no route
 * anywhere else) and their own mount namespace, in which the host's temp folders, the folders
 * of this JVM's class path (the kernel's jar folder) and the other nodes' files are hidden
 * under empty tmpfs mounts. A node sees what a separate cloud VM would: Ray and Java
 * installed, nothing of dml.
 *
 * <p>The head has no CPUs, so every worker lands on a namespaced node; this JVM is the head's
 * machine, as a kernel on a cluster's head is. One fixture runs at a time on a machine (a file
 * lock); it first removes what a crashed run left, and {@link #close()} (also a shutdown hook)
 * ends every process it started, then deletes the namespaces, links and folders.
 *
 * <pre>{@code
 * try (NamespacedCluster c = NamespacedCluster.start(2)) {
 *     RayCluster ray = RayCluster.open(ClusterSpec.builder().optAddress(c.address()).build());
 * }
 * }</pre>
 */
public final class NamespacedCluster implements AutoCloseable {

    /** How long one node may take to join, all its attempts together. */
    private static final Duration NODE_START = Duration.ofMinutes(4);
    /** What a node's object store may use (its /dev/shm is a tmpfs of its own). */
    private static final long OBJECT_STORE = 256L << 20;
    private static final String STARTED = "Ray runtime started.";

    /**
     * A worker node.
     *
     * @param name its network namespace
     * @param index its number, which names its veth pair and its IP
     * @param ip its address
     * @param dir its own folder on the host: Ray's session and logs, its DJL cache
     */
    public record Node(String name, int index, String ip, Path dir) {}

    private final RayInstallation ray;
    private final int cpus;
    private final Path root;
    /** Held while the fixture runs; its channel is the lock file's. */
    private final FileLock lock;
    private final List<Node> nodes = new CopyOnWriteArrayList<>();
    private final List<String> hidden;
    private final Thread hook = new Thread(this::teardown, "dml12-cluster-teardown");
    private Process head;
    private String address;
    private int nextIndex = 1;
    private boolean closed;

    private NamespacedCluster(RayInstallation ray, Path root, FileLock lock, int cpus) {
        this.ray = ray;
        this.cpus = cpus;
        this.root = root;
        this.lock = lock;
        this.hidden = hiddenFolders(ray);
    }

    /**
     * Says why the fixture cannot run on this machine, or nothing when it can.
     *
     * @return the reason, or empty
     */
    public static Optional<String> unavailable() {
        if (!Files.isDirectory(Path.of("/mnt"))) {
            return Optional.of("no /mnt folder (the node script stages its mounts there)");
        }
        return HostNetwork.unavailable();
    }

    /**
     * Starts a head and {@code workers} nodes of one CPU each.
     *
     * @param workers worker nodes, at least 1
     * @return the running cluster, owned by the caller
     * @throws IOException when a namespace or a node cannot be made
     */
    public static NamespacedCluster start(int workers) throws IOException {
        return start(workers, 1);
    }

    /**
     * Starts a head and {@code workers} nodes of {@code cpus} CPUs each (Ray's count: they
     * share this machine's cores).
     *
     * @param workers worker nodes, at least 1
     * @param cpus each node's CPUs
     * @return the running cluster, owned by the caller
     * @throws IOException when a namespace or a node cannot be made
     */
    public static NamespacedCluster start(int workers, int cpus) throws IOException {
        RayInstallation ray = RayInstallation.detect(ClusterSpec.defaults());
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        FileChannel ch = FileChannel.open(tmp.resolve(HostNetwork.PREFIX + "cluster.lock"),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock lock = ch.lock(); // waits for another fixture on this machine to finish
        HostNetwork.removeLeftovers(tmp);
        NamespacedCluster c = new NamespacedCluster(ray,
                Files.createTempDirectory(tmp, HostNetwork.PREFIX + "cluster-"), lock, cpus);
        Runtime.getRuntime().addShutdownHook(c.hook);
        try {
            Files.createDirectories(c.shared());
            HostNetwork.createBridge();
            c.startHead();
            for (int i = 0; i < workers; i++) {
                c.addNode();
            }
            return c;
        } catch (IOException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * Returns the head's GCS address.
     *
     * @return {@code 10.77.12.1:port}
     */
    public String address() {
        return address;
    }

    /**
     * Returns the worker nodes that run now.
     *
     * @return the nodes, oldest first
     */
    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /**
     * Returns the folder every node mounts at the same path, as a network file system would
     * be: what the host writes there each node reads, and the other way round.
     *
     * @return the folder
     */
    public Path shared() {
        return root.resolve("shared");
    }

    /**
     * Returns the folders a node cannot see (an empty tmpfs covers each there).
     *
     * @return absolute paths
     */
    public List<String> hidden() {
        return hidden;
    }

    /**
     * Starts one more worker node and waits until it has joined.
     *
     * @return the node
     * @throws IOException when it cannot be made or does not join in time
     */
    public synchronized Node addNode() throws IOException {
        int index = nextIndex++;
        Node node = new Node(HostNetwork.PREFIX + "n" + index, index,
                HostNetwork.SUBNET + (10 + index), root.resolve("n" + index));
        Files.createDirectories(node.dir().resolve("djl"));
        HostNetwork.createNamespace(node.name(), index, node.ip());
        nodes.add(node);
        List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", node.name(), "unshare",
                "-m", "--propagation", "private", "bash", "-c", NODE_SCRIPT, "node"));
        cmd.addAll(rayStart(List.of("--address=" + address, "--node-ip-address=" + node.ip(),
                "--num-cpus=" + cpus, "--temp-dir=/tmp/dml12-node/ray")));
        Map<String, String> env = Map.of("DML12_NODE_DIR", node.dir().toString(),
                "DML12_SHARED", shared().toString(),
                "DML12_DJL", Path.of(System.getProperty("user.home"), ".djl.ai").toString(),
                "DML12_HIDE", String.join(" ", hidden),
                "DML12_KEEP", String.join(" ", installed(ray)));
        long deadline = System.nanoTime() + NODE_START.toNanos();
        for (int attempt = 1; ; attempt++) {
            Process p = launch(cmd, env, node.dir().resolve("ray-start-" + attempt + ".log"));
            if (awaitStarted(p, node.dir().resolve("ray-start-" + attempt + ".log"), deadline)) {
                return node;
            }
            // Ray gives a node's agents 15 s to start, which a busy machine can miss: again
            HostNetwork.killAll(HostNetwork.pidsIn(node.name()));
            if (System.nanoTime() > deadline) {
                throw new IOException("node " + node.ip() + " did not join in " + NODE_START
                        + "; see " + node.dir());
            }
        }
    }

    /**
     * Stops a node as a VM that shuts down stops: every process in it gets SIGTERM (then
     * SIGKILL), so Ray's node leaves the cluster at once; then its namespace and link go.
     *
     * @param node a node of this cluster
     */
    public synchronized void removeNode(Node node) {
        HostNetwork.deleteNamespace(node.name(), node.index());
        nodes.remove(node);
    }

    /**
     * Stops a node as a VM that vanishes stops: every process in it is killed at once, with no
     * SIGTERM (which a worker would read as a pre-emption notice), so Ray learns of the loss
     * only from its health checks; then its namespace and link go.
     *
     * @param node a node of this cluster
     */
    public synchronized void loseNode(Node node) {
        HostNetwork.pidsIn(node.name()).forEach(ProcessHandle::destroyForcibly);
        removeNode(node);
    }

    private void startHead() throws IOException {
        int port = EmbeddedHead.freePort();
        List<String> cmd = new ArrayList<>(Processes.newSessionPrefix());
        cmd.addAll(rayStart(List.of("--head", "--port=" + port,
                "--node-ip-address=" + HostNetwork.HEAD_IP, "--num-cpus=0", "--no-monitor",
                "--include-dashboard=false", "--temp-dir=" + root.resolve("head"))));
        long deadline = System.nanoTime() + NODE_START.toNanos();
        for (int attempt = 1; ; attempt++) {
            Path log = root.resolve("head-start-" + attempt + ".log");
            head = launch(cmd, Map.of(), log);
            if (awaitStarted(head, log, deadline)) {
                address = HostNetwork.HEAD_IP + ":" + port;
                return;
            }
            Processes.killTree(head.toHandle(), Duration.ofSeconds(10));
            if (System.nanoTime() > deadline) {
                throw new IOException("the head did not start; see " + log);
            }
        }
    }

    private List<String> rayStart(List<String> args) {
        List<String> cmd = new ArrayList<>(List.of(ray.rayCommand().toString(), "start",
                "--block", "--disable-usage-stats", "--include-log-monitor=false",
                "--object-store-memory=" + OBJECT_STORE, "--log-style=record",
                "--log-color=false"));
        cmd.addAll(args);
        return cmd;
    }

    private Process launch(List<String> cmd, Map<String, String> env, Path log)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().putAll(env);
        pb.environment().put("PATH", ray.java().getParent() + ":"
                + pb.environment().getOrDefault("PATH", ""));
        pb.environment().put("RAY_USAGE_STATS_ENABLED", "0");
        pb.environment().remove(ClusterAddress.ENV);
        Process p = pb.start();
        p.getOutputStream().close();
        return p;
    }

    private static boolean awaitStarted(Process p, Path log, long deadline) {
        // stops early when the node's process ends; then it did not start
        return Processes.poll(deadline, Duration.ofMillis(250),
                () -> !p.isAlive() || Processes.tail(log, 400).contains(STARTED))
                && p.isAlive() && Processes.tail(log, 400).contains(STARTED);
    }

    /**
     * The folders a node must not see: the host's temp folders and, for each entry of this
     * JVM's class path, its top two levels ({@code /work/repo}, {@code /root/.m2}) unless Ray
     * or Java live there (then the entry's own folder).
     */
    static List<String> hiddenFolders(RayInstallation ray) {
        Set<String> out = new LinkedHashSet<>(List.of("/tmp", "/var/tmp", "/dev/shm"));
        List<String> keep = List.of(ray.rayDistJar().toString(), ray.java().toString(),
                ray.rayCommand().toString());
        for (Path p : Classpaths.current()) {
            if (p.getNameCount() < 3) {
                continue;
            }
            String top = p.getRoot().resolve(p.subpath(0, 2)).toString();
            String hide = keep.stream().anyMatch(k -> k.startsWith(top + "/"))
                    ? p.getParent().toString() : top;
            if (!hide.startsWith("/tmp/")) {
                out.add(hide);
            }
        }
        return List.copyOf(out);
    }

    /**
     * What a node has installed, as a VM would, even where it lies under a hidden folder (a
     * Python environment in a checkout under /tmp): Ray's Python environment and Java.
     */
    static List<String> installed(RayInstallation ray) {
        return List.of(ray.rayCommand().getParent().getParent().toString(),
                ray.java().getParent().getParent().toString());
    }

    /**
     * Inside a node's private mount namespace: stage the node's own folder, the shared one and
     * the installed software, cover every hidden folder with an empty tmpfs, put the staged
     * folders back at their paths, give DJL the node's own cache, and run Ray.
     */
    private static final String NODE_SCRIPT = String.join("\n",
            "set -e",
            "mount -t tmpfs dml12 /mnt",
            "mkdir /mnt/node /mnt/shared /mnt/keep",
            "mount --bind \"$DML12_NODE_DIR\" /mnt/node",
            "mount --bind \"$DML12_SHARED\" /mnt/shared",
            "i=0; for d in $DML12_KEEP; do i=$((i+1)); mkdir /mnt/keep/$i;"
                    + " mount --bind \"$d\" /mnt/keep/$i; done",
            "for d in $DML12_HIDE; do if [ -d \"$d\" ]; then mount -t tmpfs dml12 \"$d\"; fi;"
                    + " done",
            "mkdir -p /tmp/dml12-node \"$DML12_SHARED\"",
            "mount --move /mnt/node /tmp/dml12-node",
            "mount --move /mnt/shared \"$DML12_SHARED\"",
            "i=0; for d in $DML12_KEEP; do i=$((i+1)); mkdir -p \"$d\";"
                    + " mount --move /mnt/keep/$i \"$d\"; done",
            "umount /mnt",
            "if [ -d \"$DML12_DJL\" ]; then mount --bind /tmp/dml12-node/djl \"$DML12_DJL\"; fi",
            "cd /",
            "exec \"$@\"");

    /** Ends every process, namespace, link and folder of this fixture. Safe to call again. */
    @Override
    public void close() {
        teardown();
        Processes.removeShutdownHook(hook);
    }

    private synchronized void teardown() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            for (Node n : new ArrayList<>(nodes)) {
                removeNode(n); // processes first: they outlive their namespace
            }
            if (head != null) {
                Processes.killTree(head.toHandle(), Duration.ofSeconds(15));
            }
            // anything of this fixture that left the head's tree (a reparented worker)
            HostNetwork.killAll(ProcessHandle.allProcesses()
                    .filter(p -> HostNetwork.commandLine(p).contains(root.toString())).toList());
            HostNetwork.removeLeftovers(root.getParent());
        } finally {
            try {
                lock.release();
                lock.channel().close();
            } catch (IOException e) {
                // the lock goes with this JVM anyway
            }
        }
    }

    @Override
    public String toString() {
        return "NamespacedCluster[" + address + ", nodes " + nodes + "]";
    }
}

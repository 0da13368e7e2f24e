package dev.dml.ray.cluster;

import dev.dml.Closeables;
import dev.dml.DmlException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Ray cluster in use by this JVM: an external one at a known address, or an embedded
 * single-node head that this handle started and owns.
 *
 * <p>The kernel never calls Ray itself. It opens {@link DriverProcess}es, child JVMs that attach
 * to the cluster as Ray drivers, and sends them {@link DriverTask}s.
 *
 * <pre>{@code
 * try (RayCluster cluster = RayCluster.open(ClusterSpec.builder().optNumCpus(2).build());
 *      DriverProcess driver = cluster.openDriver()) {
 *     String reply = driver.call(new ClusterNodes()).toString();
 * }
 * }</pre>
 *
 * <p>Closing the handle closes the drivers it opened, then stops the embedded head (only the
 * processes it started; other clusters on the machine are left alone). A JVM shutdown hook does
 * the same if the kernel exits without closing.
 */
public final class RayCluster implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RayCluster.class);
    /** How long storing the code packages may take: 170 MB into a busy head. */
    private static final Duration UPLOAD_TIMEOUT = Duration.ofMinutes(5);

    private final RayInstallation ray;
    private final ClusterEnv limits;
    private final String address;
    private final String source;
    private final EmbeddedHead head;
    private final String nodeIp;
    private final List<DriverProcess> drivers = new CopyOnWriteArrayList<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook;

    private RayCluster(RayInstallation ray, ClusterEnv limits, String address, String source,
            EmbeddedHead head, String nodeIp) {
        this.ray = ray;
        this.limits = limits;
        this.address = address;
        this.source = source;
        this.head = head;
        this.nodeIp = nodeIp;
        this.shutdownHook = new Thread(this::shutdown, "dml-ray-cluster-close");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /**
     * Opens the cluster named by the environment ({@code RAY_ADDRESS}, then the system property
     * {@code ray.address}), or starts the embedded head when neither is set.
     *
     * @return the open cluster
     * @throws DmlException when Ray is missing or mismatched, or the address is unreachable
     */
    public static RayCluster open() {
        return open(ClusterSpec.defaults());
    }

    /**
     * Opens the cluster a spec names, or starts the embedded head. The {@code DML_*} variables
     * of {@link ClusterEnv} size the embedded head and the JVMs of its drivers and workers.
     *
     * <p>An external address is probed first (a plain TCP connect to its GCS port, at most
     * {@link ClusterSpec#probeTimeout()}), so an unreachable cluster fails here with a clear
     * message instead of inside Ray.
     *
     * @param spec the address or the embedded head's options
     * @return the open cluster
     * @throws DmlException when Ray is missing or mismatched, the address is unreachable, or the
     *     embedded head does not start
     */
    public static RayCluster open(ClusterSpec spec) {
        return open(spec, System.getenv(), System.getProperties());
    }

    static RayCluster open(ClusterSpec spec, Map<String, String> env, Properties props) {
        ClusterEnv limits = ClusterEnv.from(env); // a bad DML_* value fails before anything starts
        ClusterAddress external = ClusterAddress.resolve(spec, env, props);
        InetAddress local = external == null ? null : external.probe(spec.probeTimeout());
        RayInstallation ray = RayInstallation.detect(spec);
        if (external != null) {
            // a driver is a node's client: on a machine with several addresses (a cloud VM, a
            // test's namespaced cluster) Ray's Java default picks one that may not be the node's
            String ip = local.isLoopbackAddress() ? null : local.getHostAddress();
            return new RayCluster(ray, limits, external.text(), external.source(), null, ip);
        }
        EmbeddedHead head = EmbeddedHead.start(ray, spec, limits);
        // the head's node, on loopback
        return new RayCluster(ray, limits, head.address(), "embedded head", head,
                EmbeddedHead.LOOPBACK);
    }

    /**
     * Starts a driver process with default options.
     *
     * @return the driver, owned by the caller (and closed with this cluster at the latest)
     * @see #openDriver(DriverSpec)
     */
    public DriverProcess openDriver() {
        return openDriver(DriverSpec.defaults());
    }

    /**
     * Starts a driver process: a child JVM with {@code ray_dist.jar} and this JVM's class path
     * (Ray's own jars removed), attached to this cluster. Its actors get the same classes: on
     * an external cluster, on whatever node they land, as the job's runtime-env packages
     * ({@link CodePackages}), stored in the cluster while the driver starts; on an embedded
     * head, which is this machine's alone, from the jars where they are.
     *
     * @param spec JVM options, extra class path and timeouts
     * @return the driver, owned by the caller (and closed with this cluster at the latest)
     * @throws DmlException when the driver does not start, Ray.init() fails in it, or the code
     *     cannot be stored in the cluster
     */
    public DriverProcess openDriver(DriverSpec spec) {
        if (closed.get()) {
            throw new DmlException("This Ray cluster handle is closed.",
                    "Open a new one with RayCluster.open().");
        }
        List<Path> code = new ArrayList<>(Classpaths.current());
        code.addAll(spec.classpath());
        code = Classpaths.withoutRay(code);
        List<Path> classpath = new ArrayList<>();
        classpath.add(ray.rayDistJar());
        classpath.addAll(code);
        if (head != null) {
            // The embedded head listens on loopback, so no other machine joins it: its workers
            // read the jars in place, and the head keeps no copy of them (175 MB, most of it
            // libtorch: too much for a 2 GB Binder session).
            return launch(spec, classpath,
                    Map.of("ray.job.code-search-path", Classpaths.join(code)));
        }
        Path scratch = newScratch();
        try {
            CodePackages packages = CodePackages.of(code, scratch);
            CompletableFuture<CodeShipment> shipped = new CompletableFuture<>();
            Thread upload = new Thread(() -> {
                try {
                    shipped.complete(packages.upload(ray.python(), address, UPLOAD_TIMEOUT));
                } catch (RuntimeException e) {
                    shipped.completeExceptionally(e);
                }
            }, "dml-code-upload");
            upload.setDaemon(true);
            upload.start(); // while the driver starts: both take seconds
            DriverProcess driver = launch(spec, classpath, packageProps(packages.uris()));
            try {
                CodeShipment s = shipped.join();
                LOG.info("code for driver {}: uploaded {}, cached {}, {} s", driver.pid(),
                        s.uploaded(), s.cached(), String.format("%.2f", s.seconds()));
                driver.code = s;
            } catch (CompletionException e) {
                driver.close();
                throw e.getCause() instanceof DmlException d ? d : e;
            }
            return driver;
        } finally {
            Processes.deleteTree(scratch);
        }
    }

    /** The job's runtime-env jars: the code packages' URIs. */
    private static Map<String, String> packageProps(List<String> jars) {
        Map<String, String> props = new LinkedHashMap<>();
        for (int i = 0; i < jars.size(); i++) {
            props.put("ray.job.runtime-env.jars." + i, jars.get(i));
        }
        // a node fetches the packages when its first worker starts, after the upload ended
        props.put("ray.job.runtime-env.config.eager-install", "false");
        return props;
    }

    /**
     * Starts the driver JVM.
     *
     * @param code how the job's workers find dml's classes (Ray job properties)
     */
    private DriverProcess launch(DriverSpec spec, List<Path> classpath, Map<String, String> code) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("ray.address", address);
        if (nodeIp != null) {
            props.put("ray.node-ip", nodeIp);
        }
        props.putAll(code);
        // every worker JVM of the job: Ray's serializer (FST) reflects into JDK types; the
        // Vector API for the optimizer; the heap cap of DML_WORKER_HEAP, if set
        List<String> workerJvm = new ArrayList<>(JobJvms.ADD_OPENS);
        workerJvm.addAll(JobJvms.vectorModule());
        // the workers of a head on this machine (ours, or one reached over loopback) run this
        // java; a remote cluster's may be older and refuse the option
        if (head != null || nodeIp == null) {
            workerJvm.addAll(JobJvms.trimNativeHeap());
        }
        workerJvm.addAll(limits.workerJvmOptions());
        for (int i = 0; i < workerJvm.size(); i++) {
            props.put("ray.job.jvm-options." + i, workerJvm.get(i));
        }
        // every worker process of the job (Ray's runtime env); the driver's own is set at launch
        JobJvms.workerEnv().forEach(
                (k, v) -> props.put("ray.job.runtime-env.env-vars." + k, v));
        DriverProcess[] self = new DriverProcess[1];
        List<String> driverJvm = new ArrayList<>(JobJvms.trimNativeHeap());
        List<String> userJvm = new ArrayList<>(limits.driverJvmOptions());
        userJvm.addAll(spec.jvmOptions());
        driverJvm.addAll(JobJvms.driverHeap(userJvm));
        driverJvm.addAll(limits.driverJvmOptions());
        DriverSpec launched = spec.withJvmOptionsFirst(driverJvm);
        DriverProcess driver = DriverLauncher.launch(
                ray.java(), classpath, props, launched, newLog(), () -> drivers.remove(self[0]));
        self[0] = driver;
        drivers.add(driver);
        return driver;
    }

    private Path newScratch() {
        Path dir = head != null ? head.tempDir() : Path.of(System.getProperty("java.io.tmpdir"));
        try {
            return Files.createTempDirectory(dir, "dml-code-");
        } catch (IOException e) {
            throw new DmlException("Cannot create a folder in " + dir + ": " + e + ".",
                    "Free some disk space or fix the folder's permissions.", e);
        }
    }

    private Path newLog() {
        Path dir = head != null ? head.tempDir() : Path.of(System.getProperty("java.io.tmpdir"));
        try {
            return Files.createTempFile(dir, "dml-driver-", ".log");
        } catch (IOException e) {
            throw new DmlException("Cannot create a driver log in " + dir + ": " + e + ".",
                    "Free some disk space or fix the folder's permissions.", e);
        }
    }

    /**
     * Returns the cluster's GCS address.
     *
     * @return {@code host:port}
     */
    public String address() {
        return address;
    }

    /**
     * Returns where the address came from.
     *
     * @return {@code embedded head}, {@code {cluster}} (the address option), {@code environment
     * variable
     *     RAY_ADDRESS} or {@code system property ray.address}
     */
    public String source() {
        return source;
    }

    /**
     * Tells whether opening a cluster at {@code address} would start an embedded head: no
     * address given, and none in {@code RAY_ADDRESS} or {@code ray.address}.
     *
     * @param address the address a cell or spec names, or null
     * @return {@code true} when {@link #open} would start the embedded head
     */
    public static boolean wouldEmbed(String address) {
        ClusterSpec.Builder spec = ClusterSpec.builder();
        if (address != null) {
            spec.optAddress(address);
        }
        return ClusterAddress.resolve(spec.build(), System.getenv(), System.getProperties())
                == null;
    }

    /**
     * Returns whether this handle started the cluster (and stops it on close).
     *
     * @return {@code true} for the embedded head
     */
    public boolean isEmbedded() {
        return head != null;
    }

    /**
     * Returns the embedded head's temporary folder, where Ray's session logs and the driver
     * logs are; deleted on close.
     *
     * @return the folder, or empty for an external cluster
     */
    public Optional<Path> tempDir() {
        return head == null ? Optional.empty() : Optional.of(head.tempDir());
    }

    /**
     * Returns the Ray installation in use.
     *
     * @return the installation
     */
    public RayInstallation installation() {
        return ray;
    }

    /** Returns the live processes of the embedded head (none for an external cluster). */
    List<ProcessHandle> headProcesses() {
        return head == null ? List.of() : head.processes();
    }

    /** Returns the drivers opened and not yet closed. */
    List<DriverProcess> drivers() {
        return List.copyOf(drivers);
    }

    /**
     * Closes every driver opened from this handle, then stops the embedded head. Safe to call
     * more than once.
     */
    @Override
    public void close() {
        shutdown();
        Processes.removeShutdownHook(shutdownHook);
    }

    private void shutdown() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        List<AutoCloseable> all = new ArrayList<>(drivers); // drivers first: they use the head
        all.add(head);
        Closeables.closeAll(all);
    }

    @Override
    public String toString() {
        return "RayCluster[" + address + " from " + source + ", " + ray + "]";
    }
}

package dev.dml.ray.cluster;

import dev.dml.Checks;
import dev.dml.DmlException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Which Ray cluster to use, or how to start the embedded one.
 *
 * <p>Immutable; every option has a default, and setters reject bad values at once.
 *
 * <pre>{@code
 * ClusterSpec external = ClusterSpec.builder().optAddress("10.0.0.5:6379").build();
 * ClusterSpec embedded = ClusterSpec.builder().optNumCpus(4).build();
 * }</pre>
 *
 * <p>The address comes from, in order: {@link Builder#optAddress}, the environment variable
 * {@code RAY_ADDRESS}, the system property {@code ray.address}. With none of them, {@link
 * RayCluster#open(ClusterSpec)} starts a local head that it owns (the embedded default).
 */
public final class ClusterSpec {

    /** The Ray version whose Java runtime ({@code ray_dist.jar}) dml is built and tested with. */
    public static final String RAY_VERSION = "2.58.0";

    private final String address;
    private final int numCpus;
    private final int numGpus;
    private final String python;
    private final String rayCommand;
    private final String expectedVersion;
    private final Duration startTimeout;
    private final Duration probeTimeout;
    private final Path tempRoot;
    private final long objectStoreBytes;

    private ClusterSpec(Builder b) {
        this.address = b.address;
        this.numCpus = b.numCpus;
        this.numGpus = b.numGpus;
        this.python = b.python;
        this.rayCommand = b.rayCommand;
        this.expectedVersion = b.expectedVersion;
        this.startTimeout = b.startTimeout;
        this.probeTimeout = b.probeTimeout;
        this.tempRoot = b.tempRoot;
        this.objectStoreBytes = b.objectStoreBytes;
    }

    /**
     * Starts a spec with every option at its default (the embedded head, all CPUs).
     *
     * @return a builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Returns the spec with every option at its default.
     *
     * @return the default spec
     */
    public static ClusterSpec defaults() {
        return builder().build();
    }

    /**
     * Returns the explicit cluster address, if one was set.
     *
     * @return {@code host:port} of the cluster's GCS
     */
    public Optional<String> address() {
        return Optional.ofNullable(address);
    }

    /**
     * Returns the CPUs the embedded head offers; 0 lets Ray count the machine's cores.
     *
     * @return the CPU count
     */
    public int numCpus() {
        return numCpus;
    }

    /**
     * Returns the Python interpreter that has Ray installed, if one was set.
     *
     * @return the interpreter command or path
     */
    public Optional<String> python() {
        return Optional.ofNullable(python);
    }

    /**
     * Returns the {@code ray} command, if one was set.
     *
     * @return the command or path
     */
    public Optional<String> rayCommand() {
        return Optional.ofNullable(rayCommand);
    }

    /**
     * Returns the Ray version the installation must have.
     *
     * @return a version such as {@value #RAY_VERSION}
     */
    public String expectedVersion() {
        return expectedVersion;
    }

    /**
     * Returns how long the embedded head may take to start.
     *
     * @return the start timeout
     */
    public Duration startTimeout() {
        return startTimeout;
    }

    /**
     * Returns how long the reachability check of an external address may take.
     *
     * @return the connect timeout
     */
    public Duration probeTimeout() {
        return probeTimeout;
    }

    /**
     * Returns the folder under which the embedded head's temporary folder is made.
     *
     * @return the folder
     */
    public Path tempRoot() {
        return tempRoot;
    }

    /**
     * Returns the object store size of the embedded head in bytes; 0 lets Ray choose.
     *
     * @return the size in bytes
     */
    public long objectStoreBytes() {
        return objectStoreBytes;
    }

    /**
     * Returns the GPUs the embedded head offers; -1 lets Ray count them.
     *
     * @return the GPUs
     */
    public int numGpus() {
        return numGpus;
    }

    /** Builds a {@link ClusterSpec}; all options are optional. */
    public static final class Builder {

        private String address;
        private int numCpus;
        private int numGpus = -1;
        private String python;
        private String rayCommand;
        private String expectedVersion = RAY_VERSION;
        private Duration startTimeout = Duration.ofSeconds(120);
        private Duration probeTimeout = Duration.ofSeconds(5);
        private Path tempRoot = Path.of("/tmp");
        private long objectStoreBytes;

        private Builder() {}

        /**
         * Uses an existing cluster. This machine must be a node of it: the Ray driver attaches to
         * the local raylet.
         *
         * @param hostPort the GCS address {@code host:port}, or {@code auto} for the cluster that
         *     {@code ray start} last started on this machine
         * @return this builder
         */
        public Builder optAddress(String hostPort) {
            if (!"auto".equals(hostPort == null ? null : hostPort.trim())) {
                ClusterAddress.parse(hostPort, "{cluster}");
            }
            this.address = hostPort.trim();
            return this;
        }

        /**
         * Sets the CPUs the embedded head offers to actors.
         *
         * @param cpus at least 1
         * @return this builder
         */
        public Builder optNumCpus(int cpus) {
            this.numCpus = Checks.atLeast("numCpus", cpus, 1,
                    "Pass a positive count to ClusterSpec.optNumCpus, or leave it unset.");
            return this;
        }

        /**
         * Sets the GPUs the embedded head offers to actors ({@code ray start --num-gpus}), where
         * Ray's own count is wrong: a GPU it does not detect, or none to offer.
         *
         * @param gpus at least 0
         * @return this builder
         */
        public Builder optNumGpus(int gpus) {
            this.numGpus = Checks.atLeast("numGpus", gpus, 0,
                    "Pass 0 or more to ClusterSpec.optNumGpus, or leave it unset.");
            return this;
        }

        /**
         * Sets the Python interpreter that has Ray installed (default: the one that runs the
         * {@code ray} command, else {@code python3}).
         *
         * @param python a command on {@code PATH} or a path
         * @return this builder
         */
        public Builder optPython(String python) {
            this.python = requireText(python, "optPython");
            return this;
        }

        /**
         * Sets the {@code ray} command (default: {@code ray} on {@code PATH}).
         *
         * @param rayCommand a command on {@code PATH} or a path
         * @return this builder
         */
        public Builder optRayCommand(String rayCommand) {
            this.rayCommand = requireText(rayCommand, "optRayCommand");
            return this;
        }

        /**
         * Sets the Ray version the installation must have (default {@value #RAY_VERSION}).
         *
         * @param version a version such as {@code 2.58.0}
         * @return this builder
         */
        public Builder optExpectedVersion(String version) {
            this.expectedVersion = requireText(version, "optExpectedVersion");
            return this;
        }

        /**
         * Sets how long the embedded head may take to start (default 120 s).
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder optStartTimeout(Duration timeout) {
            this.startTimeout = Checks.positive("ClusterSpec.optStartTimeout", timeout);
            return this;
        }

        /**
         * Sets how long to try to connect to an external address (default 5 s, at most 10 s).
         *
         * @param timeout a positive duration of at most 10 s
         * @return this builder
         */
        public Builder optProbeTimeout(Duration timeout) {
            Checks.positive("ClusterSpec.optProbeTimeout", timeout);
            if (timeout.compareTo(Duration.ofSeconds(10)) > 0) {
                throw new DmlException(
                        "probeTimeout must be at most 10 s, got " + timeout.toMillis() + " ms.",
                        "Pass a shorter duration to ClusterSpec.optProbeTimeout.");
            }
            this.probeTimeout = timeout;
            return this;
        }

        /**
         * Sets the folder for the embedded head's temporary folder (default {@code /tmp}). Keep
         * it short: Ray's socket paths must fit in 107 characters.
         *
         * @param folder an existing folder
         * @return this builder
         */
        public Builder optTempRoot(Path folder) {
            if (folder == null || folder.toString().length() > 40) {
                throw new DmlException(
                        "tempRoot must be a path of at most 40 characters, got " + folder + ".",
                        "Pass a short folder such as /tmp to ClusterSpec.optTempRoot.");
            }
            this.tempRoot = folder;
            return this;
        }

        /**
         * Sets the embedded head's object store size (default: Ray's, 30% of memory).
         *
         * @param bytes at least 80 MB
         * @return this builder
         */
        public Builder optObjectStoreBytes(long bytes) {
            if (bytes < 80L << 20) {
                throw new DmlException(
                        "objectStoreBytes must be at least 80 MB, got " + bytes + ".",
                        "Pass a larger size to ClusterSpec.optObjectStoreBytes.");
            }
            this.objectStoreBytes = bytes;
            return this;
        }

        /**
         * Builds the spec.
         *
         * @return the immutable spec
         */
        public ClusterSpec build() {
            return new ClusterSpec(this);
        }

        private static String requireText(String value, String setter) {
            if (value == null || value.isBlank()) {
                throw new DmlException(
                        "ClusterSpec." + setter + " needs a non-empty value.",
                        "Pass a value, or leave the option unset to use the default.");
            }
            return value.trim();
        }
    }
}

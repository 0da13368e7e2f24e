package dev.dml.ray.cluster;

import dev.dml.Checks;
import dev.dml.DmlException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How to start a {@link DriverProcess}: extra JVM options and class path entries, and timeouts.
 *
 * <pre>{@code
 * DriverSpec spec = DriverSpec.builder().addJvmOption("-Xmx2g").build();
 * }</pre>
 *
 * @param jvmOptions the extra options of the driver JVM, in order
 * @param classpath the class path entries added to this JVM's for the driver and its workers, in
 *     order
 * @param startTimeout how long the driver may take to connect and initialise Ray
 * @param callTimeout how long {@link DriverProcess#call(DriverTask)} waits for a result
 */
public record DriverSpec(List<String> jvmOptions, List<Path> classpath, Duration startTimeout,
        Duration callTimeout) {

    /** Keeps its own copies of the lists. */
    public DriverSpec {
        jvmOptions = List.copyOf(jvmOptions);
        classpath = List.copyOf(classpath);
    }

    /**
     * Starts a spec with every option at its default.
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
    public static DriverSpec defaults() {
        return builder().build();
    }

    /**
     * Returns this spec with options placed before its own, which therefore win where both set
     * the same one (the last {@code -Xmx} counts).
     *
     * @param options JVM options, such as defaults from {@link ClusterEnv}
     * @return a spec with those options first
     */
    DriverSpec withJvmOptionsFirst(List<String> options) {
        if (options.isEmpty()) {
            return this;
        }
        Builder b = builder().optStartTimeout(startTimeout).optCallTimeout(callTimeout);
        options.forEach(b::addJvmOption);
        jvmOptions.forEach(b::addJvmOption);
        b.classpath.addAll(classpath);
        return b.build();
    }

    /** Builds a {@link DriverSpec}; all options are optional. */
    public static final class Builder {

        private final List<String> jvmOptions = new ArrayList<>();
        private final List<Path> classpath = new ArrayList<>();
        private Duration startTimeout = Duration.ofSeconds(120);
        private Duration callTimeout = Duration.ofMinutes(10);

        private Builder() {}

        /**
         * Adds an option to the driver JVM, such as {@code -Xmx2g}. Actor JVMs take theirs from
         * the actor group.
         *
         * @param option one JVM option
         * @return this builder
         */
        public Builder addJvmOption(String option) {
            if (option == null || option.isBlank() || !option.startsWith("-")) {
                throw new DmlException(
                        "'" + option + "' is not a JVM option.",
                        "Pass one option that starts with '-', such as -Xmx2g.");
            }
            jvmOptions.add(option);
            return this;
        }

        /**
         * Adds a class path entry for the driver and its actors, after this JVM's own.
         *
         * @param entry an existing jar or class folder
         * @return this builder
         */
        public Builder addClasspath(Path entry) {
            if (entry == null || !Files.exists(entry)) {
                throw new DmlException(
                        "Class path entry " + entry + " does not exist.",
                        "Pass an existing jar or class folder to DriverSpec.addClasspath.");
            }
            classpath.add(entry.toAbsolutePath().normalize());
            return this;
        }

        /**
         * Sets how long the driver may take to connect and initialise Ray (default 120 s).
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder optStartTimeout(Duration timeout) {
            this.startTimeout = Checks.positive("DriverSpec.optStartTimeout", timeout);
            return this;
        }

        /**
         * Sets how long {@link DriverProcess#call(DriverTask)} waits (default 10 min).
         *
         * @param timeout a positive duration
         * @return this builder
         */
        public Builder optCallTimeout(Duration timeout) {
            this.callTimeout = Checks.positive("DriverSpec.optCallTimeout", timeout);
            return this;
        }

        /**
         * Builds the spec.
         *
         * @return the immutable spec
         */
        public DriverSpec build() {
            return new DriverSpec(jvmOptions, classpath, startTimeout, callTimeout);
        }
    }
}

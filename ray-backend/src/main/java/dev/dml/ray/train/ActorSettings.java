package dev.dml.ray.train;

import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.ActorGroupBuilder;
import java.time.Duration;
import java.util.List;

/**
 * What every worker actor of a job gets, whatever the strategy: CPUs, GPUs, JVM options and how
 * long a call may wait. Stays in the driver.
 *
 * @param cpus CPUs each actor reserves
 * @param gpus GPUs each actor reserves
 * @param jvmOptions each actor's JVM options
 * @param timeout how long a call or a collective may wait
 */
record ActorSettings(double cpus, double gpus, List<String> jvmOptions, Duration timeout) {

    ActorSettings {
        jvmOptions = List.copyOf(jvmOptions);
    }

    /** A group of {@code size} workers with these settings, to open. */
    ActorGroupBuilder<TrainWorker> group(int size) {
        ActorGroupBuilder<TrainWorker> b = ActorGroup.builder(TrainWorker::new).setSize(size)
                .optCpusPerActor(cpus).optGpusPerActor(gpus).optTimeout(timeout);
        jvmOptions.forEach(b::addJvmOption);
        return b;
    }
}

package dev.dml.ray.train.runner;

import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.ActorGroupBuilder;
import dev.dml.options.TransportKind;
import dev.dml.ray.train.recovery.JobPlacement;
import dev.dml.ray.train.worker.TrainWorker;
import io.ray.api.function.RayFunc0;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;

/**
 * What every worker actor of a job gets, whatever the strategy: CPUs, GPUs, JVM options, its
 * bundle of the job's placement group, and how long a call may wait. Stays in the driver.
 *
 * @param cpus CPUs each actor reserves
 * @param gpus GPUs each actor reserves
 * @param jvmOptions each actor's JVM options
 * @param timeout how long a call or a collective may wait
 * @param placement the job's placement group, or null where there is none (LOCAL mode)
 * @param transport how the workers' collectives move data
 * @param worker the workers' constructor; null for {@code TrainWorker::new} (tests set their
 *     own, in Ray's LOCAL mode)
 */
record ActorSettings(double cpus, double gpus, List<String> jvmOptions, Duration timeout,
        JobPlacement placement, TransportKind transport, RayFunc0<TrainWorker> worker) {

    ActorSettings {
        jvmOptions = List.copyOf(jvmOptions);
    }

    /**
     * The worker class a job's runner names: null for {@link TrainWorker}, else the
     * {@code RayFunc0<TrainWorker>} a test set (the runner holds it as an Object: see {@code
     * JobRunner.worker}).
     */
    @SuppressWarnings("unchecked")
    static RayFunc0<TrainWorker> worker(Object named) {
        return (RayFunc0<TrainWorker>) named;
    }

    /** A group of {@code size} workers in bundles {@code 0 .. size-1}, ranked by node. */
    ActorGroupBuilder<TrainWorker> group(int size) {
        return group(IntStream.range(0, size).boxed().toList());
    }

    /**
     * A group of workers, one per bundle, ranked in the bundles' order (a pipeline's stages
     * must keep the replicas' order).
     */
    ActorGroupBuilder<TrainWorker> groupInBundles(List<Integer> bundles) {
        return group(bundles).optCreationOrder();
    }

    private ActorGroupBuilder<TrainWorker> group(List<Integer> bundles) {
        ActorGroupBuilder<TrainWorker> b = ActorGroup.builder(
                        worker != null ? worker : TrainWorker::new)
                .setSize(bundles.size()).optCpusPerActor(cpus).optGpusPerActor(gpus)
                .optTimeout(timeout).optTransport(transport);
        jvmOptions.forEach(b::addJvmOption);
        if (placement != null) {
            b.optPlacement(placement.group(), bundles);
        }
        return b;
    }
}

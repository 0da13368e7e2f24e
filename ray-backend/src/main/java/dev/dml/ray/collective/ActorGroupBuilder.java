package dev.dml.ray.collective;

import dev.dml.events.WorkerInfo;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.call.ActorCreator;
import io.ray.api.concurrencygroup.ConcurrencyGroup;
import io.ray.api.concurrencygroup.ConcurrencyGroupBuilder;
import io.ray.api.function.RayFunc0;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds an {@link ActorGroup}.
 *
 * @param <W> the actor class
 */
public final class ActorGroupBuilder<W extends CollectiveWorker> {

    private final RayFunc0<W> factory;
    int size;
    private double cpusPerActor = 1.0;
    private double gpusPerActor;
    private final List<String> jvmOptions = new ArrayList<>();
    Duration timeout = Duration.ofMinutes(10);

    ActorGroupBuilder(RayFunc0<W> factory) {
        this.factory = factory;
    }

    /**
     * Sets the number of actors (required).
     *
     * @param size at least 1
     * @return this builder
     */
    public ActorGroupBuilder<W> setSize(int size) {
        if (size < 1) {
            throw new CollectiveException("An actor group needs at least 1 actor, got "
                    + size + ".", "Pass a positive size to ActorGroupBuilder.setSize.");
        }
        this.size = size;
        return this;
    }

    /**
     * Sets the CPUs Ray reserves for each actor (default 1; 0 lets actors share CPUs).
     *
     * @param cpus 0 or more
     * @return this builder
     */
    public ActorGroupBuilder<W> optCpusPerActor(double cpus) {
        if (!(cpus >= 0)) {
            throw new CollectiveException("cpusPerActor must be 0 or more, got " + cpus + ".",
                    "Pass a non-negative count to ActorGroupBuilder.optCpusPerActor.");
        }
        this.cpusPerActor = cpus;
        return this;
    }

    /**
     * Sets the GPUs Ray reserves for each actor (default 0). Ray places an actor only on a
     * node with that many GPUs free, so check the cluster's GPUs first: a request no node can
     * meet waits until {@link #optTimeout}.
     *
     * @param gpus 0 or more
     * @return this builder
     */
    public ActorGroupBuilder<W> optGpusPerActor(double gpus) {
        if (!(gpus >= 0)) {
            throw new CollectiveException("gpusPerActor must be 0 or more, got " + gpus + ".",
                    "Pass a non-negative count to ActorGroupBuilder.optGpusPerActor.");
        }
        this.gpusPerActor = gpus;
        return this;
    }

    /**
     * Adds an option to each actor's JVM, such as {@code -Xmx2g}.
     *
     * @param option one JVM option
     * @return this builder
     */
    public ActorGroupBuilder<W> addJvmOption(String option) {
        if (option == null || !option.startsWith("-")) {
            throw new CollectiveException("'" + option + "' is not a JVM option.",
                    "Pass one option that starts with '-', such as -Xmx2g.");
        }
        jvmOptions.add(option);
        return this;
    }

    /**
     * Sets how long a group call or a collective step may wait (default 10 min).
     *
     * @param timeout a positive duration
     * @return this builder
     */
    public ActorGroupBuilder<W> optTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new CollectiveException("timeout must be positive, got " + timeout + ".",
                    "Pass a duration such as Duration.ofMinutes(5).");
        }
        this.timeout = timeout;
        return this;
    }

    /**
     * Creates the actors, tells each its rank and peers, and waits until all have joined.
     * Must run in a Ray driver (inside a {@link dev.dml.ray.cluster.DriverTask}).
     *
     * @return the group, owned by the caller
     * @throws CollectiveException when an actor cannot start or join in time
     */
    public ActorGroup<W> open() {
        return ActorGroup.openAll(List.of(this)).get(0);
    }

    @SuppressWarnings("unchecked")
    ActorGroup<W> join(List<ActorHandle<W>> actors) {
        List<ActorHandle<CollectiveWorker>> peers = new ArrayList<>();
        for (ActorHandle<W> a : actors) {
            peers.add((ActorHandle<CollectiveWorker>) (ActorHandle<?>) a);
        }
        List<ObjectRef<WorkerInfo>> joins = new ArrayList<>();
        for (int r = 0; r < actors.size(); r++) {
            joins.add(actors.get(r).task(CollectiveWorker::join, r, actors.size(), peers,
                    timeout.toMillis()).remote());
        }
        List<WorkerInfo> workers = Gather.await(joins, List.of(), "joining the group", timeout);
        return new ActorGroup<>(actors, workers, this);
    }

    void create(int count, List<ActorHandle<W>> into) {
        if (size < 1) {
            throw new CollectiveException("The actor group's size is not set.",
                    "Call ActorGroupBuilder.setSize before open().");
        }
        ConcurrencyGroup delivery = new ConcurrencyGroupBuilder<W>()
                .setName(CollectiveWorker.DELIVERY_GROUP)
                .setMaxConcurrency(4)
                .addMethod(CollectiveWorker::receive)
                .addMethod(CollectiveWorker::abort)
                .build();
        for (int r = 0; r < count; r++) {
            ActorCreator<W> creator = Ray.actor(factory)
                    .setResource("CPU", cpusPerActor)
                    .setJvmOptions(jvmOptions)
                    .setConcurrencyGroups(delivery);
            if (gpusPerActor > 0) {
                creator.setResource("GPU", gpusPerActor);
            }
            into.add(creator.remote());
        }
    }
}

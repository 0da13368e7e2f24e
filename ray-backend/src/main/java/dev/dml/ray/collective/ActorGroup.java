package dev.dml.ray.collective;

import dev.dml.events.WorkerInfo;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.function.RayFunc0;
import io.ray.api.function.RayFunc1;
import io.ray.api.function.RayFunc2;
import io.ray.api.placementgroup.PlacementGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * {@code N} actors that know their ranks and each other: the unit of data-parallel training.
 * Lives in the Ray driver (a {@link dev.dml.ray.cluster.DriverTask}), never in the kernel.
 *
 * <pre>{@code
 * try (ActorGroup<Trainer> group = ActorGroup.builder(Trainer::new)
 *         .setSize(4).optCpusPerActor(1).addJvmOption("-Xmx2g").open()) {
 *     List<Float> losses = group.callEach(Trainer::step, shards);
 * }
 * }</pre>
 *
 * <p>Every call waits at most {@link Builder#optTimeout} and fails fast: the first rank that
 * fails ends the wait with a {@link CollectiveException} naming its rank, pid and host. The
 * group owns its actors; {@link #close()} kills them.
 *
 * @param <W> the actor class
 */
public final class ActorGroup<W extends CollectiveWorker> implements AutoCloseable {

    private final List<ActorHandle<W>> actors;
    private final List<WorkerInfo> workers;
    private final Duration timeout;
    private boolean closed;

    private ActorGroup(List<ActorHandle<W>> actors, List<WorkerInfo> workers, Duration timeout) {
        this.actors = List.copyOf(actors);
        this.workers = List.copyOf(workers);
        this.timeout = timeout;
    }

    /**
     * Starts a group of actors made by {@code factory}.
     *
     * @param factory the actor constructor, such as {@code Trainer::new}
     * @param <W> the actor class
     * @return a builder
     */
    public static <W extends CollectiveWorker> Builder<W> builder(RayFunc0<W> factory) {
        return new Builder<>(factory);
    }

    /**
     * Returns the number of actors.
     *
     * @return the world size
     */
    public int size() {
        return actors.size();
    }

    /**
     * Returns the actor of a rank, borrowed: the group kills it on close.
     *
     * @param rank 0 to {@code size() - 1}
     * @return its handle
     */
    public ActorHandle<W> actor(int rank) {
        return actors.get(rank);
    }

    /**
     * Returns who each actor is, by rank.
     *
     * @return rank, pid and host of each actor
     */
    public List<WorkerInfo> workers() {
        return workers;
    }

    /**
     * Calls a method on every actor and waits for all results.
     *
     * @param method a method reference such as {@code Trainer::evaluate}
     * @param <R> the result type
     * @return the results, by rank
     */
    public <R> List<R> callAll(RayFunc1<W, R> method) {
        return gather(Gather.methodName(method), r -> actors.get(r).task(method).remote());
    }

    /**
     * Calls a method with the same argument on every actor and waits for all results.
     *
     * @param method a method reference such as {@code Trainer::setLearningRate}
     * @param arg the argument for every rank
     * @param <T> the argument type
     * @param <R> the result type
     * @return the results, by rank
     */
    public <T, R> List<R> callAll(RayFunc2<W, T, R> method, T arg) {
        return gather(Gather.methodName(method), r -> actors.get(r).task(method, arg).remote());
    }

    /**
     * Calls a method with one argument per rank (a data shard, say) and waits for all results.
     *
     * @param method a method reference such as {@code Trainer::step}
     * @param perRank the arguments, by rank; {@code size()} of them
     * @param <T> the argument type
     * @param <R> the result type
     * @return the results, by rank
     */
    public <T, R> List<R> callEach(RayFunc2<W, T, R> method, List<T> perRank) {
        requireOnePerRank(perRank);
        return gather(Gather.methodName(method), r -> actors.get(r).task(method, perRank.get(r))
                .remote());
    }

    /** Calls a method on the actor of a rank ({@code Trainer::evaluate}), waits, returns. */
    public <R> R callOne(int rank, RayFunc1<W, R> method) {
        return one(rank, Gather.methodName(method), actors.get(rank).task(method).remote());
    }

    /** Calls a method with an argument on the actor of a rank, waits, and returns its result. */
    public <T, R> R callOne(int rank, RayFunc2<W, T, R> method, T arg) {
        return one(rank, Gather.methodName(method), actors.get(rank).task(method, arg).remote());
    }

    private <R> R one(int rank, String what, ObjectRef<R> ref) {
        return Gather.await(List.of(ref), List.of(workers.get(rank)), what, timeout).get(0);
    }

    /** All-reduces one array per rank, for the driver; trainers call it in their methods. */
    public List<float[]> allReduce(List<float[]> perRank, ReduceOp op) {
        requireOnePerRank(perRank);
        return gather("allReduce", r -> actors.get(r)
                .task(CollectiveWorker::allReduce, perRank.get(r), op).remote());
    }

    /** Broadcasts rank 0's {@code data} to every actor; returns each rank's copy. */
    public List<float[]> broadcast(float[] data) {
        float[] none = new float[0];
        return gather("broadcast", r -> actors.get(r)
                .task(CollectiveWorker::broadcast, r == 0 ? data : none).remote());
    }

    /**
     * Returns what the actors' collectives moved, summed over ranks.
     *
     * @return the totals
     */
    public CollectiveStats stats() {
        CollectiveStats total = new CollectiveStats(0, 0, 0, 0, 0, 0);
        for (CollectiveStats s : callAll(CollectiveWorker::stats)) {
            total = total.plus(s);
        }
        return total;
    }

    private void requireOnePerRank(List<?> perRank) {
        if (perRank.size() != actors.size()) {
            throw new CollectiveException(
                    "Got " + perRank.size() + " arguments for " + actors.size() + " ranks.",
                    "Pass exactly one argument per rank.");
        }
    }

    private <R> List<R> gather(String what, Function<Integer, ObjectRef<R>> call) {
        if (closed) {
            throw new CollectiveException("This actor group is closed.",
                    "Open a new one with ActorGroup.builder(...).open().");
        }
        List<ObjectRef<R>> refs = new ArrayList<>();
        for (int r = 0; r < actors.size(); r++) {
            refs.add(call.apply(r));
        }
        return Gather.await(refs, workers, what, timeout);
    }

    /**
     * Kills the actors (in Ray's LOCAL mode, where kill is unsupported, they stay until {@code
     * Ray.shutdown()}). Safe to call more than once.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (ActorHandle<W> a : actors) {
            kill(a);
        }
    }

    private static void kill(ActorHandle<?> actor) {
        try {
            actor.kill();
        } catch (UnsupportedOperationException e) {
            // LOCAL mode: actors end with Ray.shutdown()
        } catch (RuntimeException e) {
            // already dead
        }
    }

    /**
     * Opens several groups at once: all their actors start together (a JVM each, in parallel)
     * before any group waits for its members to join. See {@link Builder#open()}.
     *
     * @param builders the groups' builders
     * @param <W> the actor class
     * @return the groups, in order, owned by the caller
     * @throws CollectiveException when an actor cannot start or join in time
     */
    public static <W extends CollectiveWorker> List<ActorGroup<W>> openAll(
            List<Builder<W>> builders) {
        List<List<ActorHandle<W>>> created = new ArrayList<>();
        try {
            for (Builder<W> b : builders) {
                List<ActorHandle<W>> actors = new ArrayList<>();
                created.add(actors); // before create: a failure kills what has started
                b.create(actors);
            }
            List<ActorGroup<W>> groups = new ArrayList<>();
            for (int i = 0; i < builders.size(); i++) {
                groups.add(builders.get(i).join(created.get(i)));
            }
            return groups;
        } catch (RuntimeException e) {
            created.forEach(list -> list.forEach(ActorGroup::kill));
            throw e;
        }
    }

    /**
     * Builds an {@link ActorGroup}.
     *
     * @param <W> the actor class
     */
    public static final class Builder<W extends CollectiveWorker> {

        private final RayFunc0<W> factory;
        private int size;
        private double cpusPerActor = 1.0;
        private double gpusPerActor;
        private final List<String> jvmOptions = new ArrayList<>();
        private Duration timeout = Duration.ofMinutes(10);
        private PlacementGroup placement;
        private List<Integer> bundles = List.of();
        private boolean ranksByNode = true;

        private Builder(RayFunc0<W> factory) {
            this.factory = factory;
        }

        /**
         * Sets the number of actors (required).
         *
         * @param size at least 1
         * @return this builder
         */
        public Builder<W> setSize(int size) {
            if (size < 1) {
                throw new CollectiveException("An actor group needs at least 1 actor, got "
                        + size + ".", "Pass a positive size to ActorGroup.Builder.setSize.");
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
        public Builder<W> optCpusPerActor(double cpus) {
            if (!(cpus >= 0)) {
                throw new CollectiveException("cpusPerActor must be 0 or more, got " + cpus + ".",
                        "Pass a non-negative count to ActorGroup.Builder.optCpusPerActor.");
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
        public Builder<W> optGpusPerActor(double gpus) {
            if (!(gpus >= 0)) {
                throw new CollectiveException("gpusPerActor must be 0 or more, got " + gpus + ".",
                        "Pass a non-negative count to ActorGroup.Builder.optGpusPerActor.");
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
        public Builder<W> addJvmOption(String option) {
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
        public Builder<W> optTimeout(Duration timeout) {
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
            return openAll(List.of(this)).get(0);
        }

        /**
         * Places the actors in a placement group, actor {@code i} in bundle {@code
         * bundles.get(i)}: the caller's group decides whether they pack onto few nodes or
         * spread over many. Without it Ray places each actor where it likes.
         *
         * @param group a placement group that is ready
         * @param bundles one bundle index per actor
         * @return this builder
         */
        public Builder<W> optPlacement(PlacementGroup group, List<Integer> bundles) {
            this.placement = group;
            this.bundles = List.copyOf(bundles);
            return this;
        }

        /**
         * Keeps ranks in creation order instead of giving the actors of one node neighbouring
         * ranks (the default, which keeps a ring's links inside nodes where it can). For groups
         * whose rank must match another group's, such as a pipeline's stages.
         *
         * @return this builder
         */
        public Builder<W> optCreationOrder() {
            this.ranksByNode = false;
            return this;
        }

        private ActorGroup<W> join(List<ActorHandle<W>> created) {
            GroupStart.Members<W> m = GroupStart.join(created, ranksByNode, timeout);
            return new ActorGroup<>(m.actors(), m.workers(), timeout);
        }

        private void create(List<ActorHandle<W>> into) {
            if (size < 1) {
                throw new CollectiveException("The actor group's size is not set.",
                        "Call ActorGroup.Builder.setSize before open().");
            }
            if (placement != null && bundles.size() != size) {
                throw new CollectiveException("Got " + bundles.size() + " bundles for " + size
                        + " actors.", "Pass one bundle index per actor to optPlacement.");
            }
            GroupStart.create(factory, size, cpusPerActor, gpusPerActor, jvmOptions, placement,
                    bundles, into);
        }
    }
}

package dev.dml.ray.collective;

import dev.dml.events.WorkerInfo;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.function.RayFunc0;
import io.ray.api.function.RayFunc1;
import io.ray.api.function.RayFunc2;
import io.ray.api.function.RayFunc3;
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
 * <p>Every call waits at most {@link ActorGroupBuilder#optTimeout} and fails fast: the first rank
 * that fails ends the wait with a {@link CollectiveException} naming its rank, pid and host. The
 * group owns its actors; {@link #close()} kills them.
 *
 * @param <W> the actor class
 */
public final class ActorGroup<W extends CollectiveWorker> implements AutoCloseable {

    private final List<ActorHandle<W>> actors;
    private final List<WorkerInfo> workers;
    private final ActorGroupBuilder<W> builder;
    private final List<Slot> slotOfRank;
    private final Duration timeout;
    private boolean closed;

    ActorGroup(List<ActorHandle<W>> actors, List<WorkerInfo> workers,
            ActorGroupBuilder<W> builder, List<Slot> slotOfRank) {
        this.actors = List.copyOf(actors);
        this.workers = List.copyOf(workers);
        this.builder = builder;
        this.slotOfRank = List.copyOf(slotOfRank);
        this.timeout = builder.timeout;
    }

    /**
     * Starts a group of actors made by {@code factory}.
     *
     * @param factory the actor constructor, such as {@code Trainer::new}
     * @param <W> the actor class
     * @return a builder
     */
    public static <W extends CollectiveWorker> ActorGroupBuilder<W> builder(RayFunc0<W> factory) {
        return new ActorGroupBuilder<>(factory);
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

    /** Calls a method with two arguments on the actor of a rank, waits, and returns its result. */
    public <A, B, R> R callOne(int rank, RayFunc3<W, A, B, R> method, A a, B b) {
        return one(rank, Gather.methodName(method), actors.get(rank).task(method, a, b).remote());
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

    /**
     * Calls a method with the same argument on every actor and returns at once: the supplier
     * waits for the results as {@link #callAll(RayFunc2, Object)} does. A caller that drops it
     * leaves the calls to run in the actors' order, before any later call.
     *
     * @param method a method reference such as {@code Trainer::steps}
     * @param arg the argument for every rank
     * @param <T> the argument type
     * @param <R> the result type
     * @return the results, by rank, once they are all in
     */
    public <T, R> java.util.function.Supplier<List<R>> sendAll(RayFunc2<W, T, R> method, T arg) {
        return send(Gather.methodName(method), r -> actors.get(r).task(method, arg).remote());
    }

    private <R> List<R> gather(String what, Function<Integer, ObjectRef<R>> call) {
        return send(what, call).get();
    }

    private <R> java.util.function.Supplier<List<R>> send(String what,
            Function<Integer, ObjectRef<R>> call) {
        if (closed) {
            throw new CollectiveException("This actor group is closed.",
                    "Open a new one with ActorGroup.builder(...).open().");
        }
        List<ObjectRef<R>> refs = new ArrayList<>();
        for (int r = 0; r < actors.size(); r++) {
            refs.add(call.apply(r));
        }
        List<WorkerInfo> who = workers;
        return () -> Gather.await(refs, who, what, timeout);
    }

    /**
     * Finds the ranks that are gone and ends every collective the others wait in: each actor
     * gets {@link CollectiveWorker#abort} in its delivery group, which answers even while the
     * actor is busy. An actor that fails or does not answer in time counts as lost.
     *
     * @param why what happened, for the survivors' exceptions
     * @param wait how long to wait for an answer
     * @return the lost ranks, in order; empty when every actor answered
     */
    public List<Integer> probe(String why, Duration wait) {
        List<ObjectRef<Long>> refs = new ArrayList<>();
        for (ActorHandle<W> a : actors) {
            refs.add(a.task(CollectiveWorker::abort, why)
                    .setConcurrencyGroup(CollectiveWorker.DELIVERY_GROUP).remote());
        }
        Ray.wait(refs, refs.size(), (int) Math.min(Integer.MAX_VALUE, wait.toMillis()));
        List<Integer> lost = new ArrayList<>();
        for (int r = 0; r < refs.size(); r++) {
            try {
                Ray.get(refs.get(r), 1);
            } catch (RuntimeException e) {
                lost.add(r); // dead, or too slow to count on
            }
        }
        return lost;
    }

    /**
     * Returns where the actor of a rank started, for a later {@link #grow}.
     *
     * @param rank 0 to {@code size() - 1}
     * @return its slot
     */
    public Slot slot(int rank) {
        return slotOfRank.get(rank);
    }

    /**
     * Replaces the actors of some ranks with new ones, started as this group's were (in the
     * lost actors' bundles, which Ray moves to a node with room when theirs is gone), and joins
     * every rank again, so that collectives work across the new membership. This group is done
     * afterwards; the kept actors belong to the group returned. The new actors hold nothing
     * yet: load and initialise them.
     *
     * @param ranks the ranks to replace; their old actors are killed
     * @param wait how long the new actors may take to start (a slot with no room waits)
     * @return the group with the same ranks, owned by the caller
     * @throws CollectiveException when a new actor cannot start or join in time; this group
     *     keeps its other actors, for a {@link #shrink}
     */
    public ActorGroup<W> replace(List<Integer> ranks, Duration wait) {
        List<ActorHandle<W>> fresh = new ArrayList<>();
        try {
            ranks.forEach(r -> kill(actors.get(r))); // a hung one would hold its bundle
            builder.create(ranks.stream().map(slotOfRank::get).toList(), fresh);
            List<ActorHandle<W>> all = new ArrayList<>(actors);
            for (int i = 0; i < ranks.size(); i++) {
                all.set(ranks.get(i), fresh.get(i));
            }
            ActorGroup<W> next = builder.join(all, slotOfRank, true, wait);
            closed = true;
            return next;
        } catch (RuntimeException e) {
            fresh.forEach(ActorGroup::kill);
            throw e;
        }
    }

    /** {@link #replace(List, Duration)}, waiting as long as any call may. */
    public ActorGroup<W> replace(List<Integer> ranks) {
        return replace(ranks, timeout);
    }

    /**
     * Drops the actors of some ranks and joins the others again, in their order, as a smaller
     * group (ranks renumbered from 0). This group is done afterwards.
     *
     * @param ranks the ranks to drop; their actors are killed
     * @return the group of the others, owned by the caller
     */
    public ActorGroup<W> shrink(List<Integer> ranks) {
        List<ActorHandle<W>> kept = new ArrayList<>();
        List<Slot> slots = new ArrayList<>();
        for (int r = 0; r < actors.size(); r++) {
            if (!ranks.contains(r)) {
                kept.add(actors.get(r));
                slots.add(slotOfRank.get(r));
            }
        }
        ranks.forEach(r -> kill(actors.get(r)));
        closed = true;
        return builder.join(kept, slots, true, timeout);
    }

    /**
     * Starts new actors in some slots and joins them after this group's ranks, which keep their
     * numbers. This group is done afterwards, unless the new actors fail.
     *
     * @param slots where the new actors start
     * @param wait how long they may take to start
     * @return the larger group, owned by the caller
     * @throws CollectiveException when a new actor cannot start or join in time; the new
     *     actors are killed and this group's join again as they were, so that it works on
     */
    public ActorGroup<W> grow(List<Slot> slots, Duration wait) {
        List<ActorHandle<W>> fresh = new ArrayList<>();
        try {
            builder.create(slots, fresh);
            List<ActorHandle<W>> all = new ArrayList<>(actors);
            all.addAll(fresh);
            List<Slot> allSlots = new ArrayList<>(slotOfRank);
            allSlots.addAll(slots);
            ActorGroup<W> next = builder.join(all, allSlots, true, wait);
            closed = true;
            return next;
        } catch (RuntimeException e) {
            fresh.forEach(ActorGroup::kill);
            // a new actor may have failed after the others opened new endpoints (closing
            // theirs) or joined the larger group: they join again as they were
            try {
                builder.join(actors, slotOfRank, true, timeout);
            } catch (RuntimeException again) {
                e.addSuppressed(again); // the next call fails, and a recovery finds who is gone
            }
            throw e;
        }
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
     * before any group waits for its members to join. See {@link ActorGroupBuilder#open()}.
     *
     * @param builders the groups' builders
     * @param <W> the actor class
     * @return the groups, in order, owned by the caller
     * @throws CollectiveException when an actor cannot start or join in time
     */
    public static <W extends CollectiveWorker> List<ActorGroup<W>> openAll(
            List<ActorGroupBuilder<W>> builders) {
        List<List<ActorHandle<W>>> created = new ArrayList<>();
        try {
            for (ActorGroupBuilder<W> b : builders) {
                List<ActorHandle<W>> actors = new ArrayList<>();
                created.add(actors); // before create: a failure kills what has started
                b.create(b.allSlots(), actors);
            }
            List<ActorGroup<W>> groups = new ArrayList<>();
            for (int i = 0; i < builders.size(); i++) {
                ActorGroupBuilder<W> b = builders.get(i);
                groups.add(b.join(created.get(i), b.allSlots(), false, b.timeout));
            }
            return groups;
        } catch (RuntimeException e) {
            created.forEach(list -> list.forEach(ActorGroup::kill));
            throw e;
        }
    }
}

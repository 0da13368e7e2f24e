package dev.dml.ray.collective;

import dev.dml.options.TransportKind;
import io.ray.api.ActorHandle;
import io.ray.api.function.RayFunc0;
import io.ray.api.placementgroup.PlacementGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

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
    private PlacementGroup placement;
    private List<Integer> bundles = List.of();
    private boolean ranksByNode = true;
    private TransportKind transport = TransportKind.TCP;

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
        this.cpusPerActor = perActor("Cpus", cpus);
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
        this.gpusPerActor = perActor("Gpus", gpus);
        return this;
    }

    /** A count of CPUs or GPUs per actor, checked: 0 or more. */
    private static double perActor(String resource, double count) {
        if (!(count >= 0)) {
            throw new CollectiveException(resource.toLowerCase(Locale.ROOT)
                    + "PerActor must be 0 or more, got " + count + ".",
                    "Pass a non-negative count to ActorGroupBuilder.opt" + resource + "PerActor.");
        }
        return count;
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

    /**
     * Places the actors in a placement group, actor {@code i} in bundle {@code
     * bundles.get(i)}: the caller's group decides whether they pack onto few nodes or spread
     * over many. Without it Ray places each actor where it likes.
     *
     * @param group a placement group that is ready
     * @param bundles one bundle index per actor
     * @return this builder
     */
    public ActorGroupBuilder<W> optPlacement(PlacementGroup group, List<Integer> bundles) {
        this.placement = group;
        this.bundles = List.copyOf(bundles);
        return this;
    }

    /**
     * Sets how the actors move collective data between them (default {@link
     * TransportKind#TCP}: direct connections, falling back to Ray's object store per link).
     *
     * @param kind the transport
     * @return this builder
     */
    public ActorGroupBuilder<W> optTransport(TransportKind kind) {
        this.transport = java.util.Objects.requireNonNull(kind, "kind");
        return this;
    }

    /**
     * Keeps ranks in creation order instead of giving the actors of one node neighbouring
     * ranks (the default, which keeps a ring's links inside nodes where it can). For groups
     * whose rank must match another group's, such as a pipeline's stages.
     *
     * @return this builder
     */
    public ActorGroupBuilder<W> optCreationOrder() {
        this.ranksByNode = false;
        return this;
    }

    /** Every slot of a new group: actor {@code i} in bundle {@code bundles.get(i)}. */
    List<Slot> allSlots() {
        return IntStream.range(0, size).mapToObj(i -> placement == null ? Slot.ANYWHERE
                : new Slot(placement, bundles.get(i))).toList();
    }

    /**
     * Joins created actors into a group.
     *
     * @param created the actors, in creation order
     * @param slots each created actor's slot
     * @param keepOrder number the actors in the given order, as a replacement must
     * @param startWait how long the actors may take to start
     */
    ActorGroup<W> join(List<ActorHandle<W>> created, List<Slot> slots, boolean keepOrder,
            Duration startWait) {
        GroupStart.Members<W> m = GroupStart.join(created, ranksByNode && !keepOrder, startWait,
                timeout, transport);
        List<Slot> slotOfRank = m.order().stream().map(slots::get).toList();
        return new ActorGroup<>(m.actors(), m.workers(), this, slotOfRank);
    }

    /** Creates one actor in each slot, into {@code into} as each starts. */
    void create(List<Slot> slots, List<ActorHandle<W>> into) {
        if (size < 1) {
            throw new CollectiveException("The actor group's size is not set.",
                    "Call ActorGroupBuilder.setSize before open().");
        }
        if (placement != null && bundles.size() != size) {
            throw new CollectiveException("Got " + bundles.size() + " bundles for " + size
                    + " actors.", "Pass one bundle index per actor to optPlacement.");
        }
        GroupStart.create(factory, cpusPerActor, gpusPerActor, jvmOptions, slots, into);
    }
}

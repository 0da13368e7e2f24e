package dev.dml.ray.collective;

import dev.dml.options.TransportKind;
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
 * How an {@link ActorGroup} comes to be: create the actors (in their placement group's
 * bundles, if any), ask each where it landed, number them so that the actors of one node get
 * neighbouring ranks, and tell each its rank, its peers and every rank's node.
 */
final class GroupStart {

    private GroupStart() {}

    /**
     * The members of a joined group, by rank.
     *
     * @param actors the actors
     * @param workers who each is
     * @param order the creation index of each rank's actor
     * @param <W> the actor class
     */
    record Members<W>(List<ActorHandle<W>> actors, List<WorkerInfo> workers,
            List<Integer> order) {}

    /** Creates the actors, without waiting for them; each one is in {@code into} at once. */
    static <W extends CollectiveWorker> void create(RayFunc0<W> factory, double cpus,
            double gpus, List<String> jvmOptions, List<Slot> slots, List<ActorHandle<W>> into) {
        ConcurrencyGroup delivery = new ConcurrencyGroupBuilder<W>()
                .setName(CollectiveWorker.DELIVERY_GROUP)
                .setMaxConcurrency(4)
                .addMethod(CollectiveWorker::receive)
                .addMethod(CollectiveWorker::abort)
                .build();
        for (Slot slot : slots) {
            ActorCreator<W> creator = Ray.actor(factory)
                    .setResource("CPU", cpus)
                    .setJvmOptions(jvmOptions)
                    .setConcurrencyGroups(delivery);
            if (gpus > 0) {
                creator.setResource("GPU", gpus);
            }
            if (slot.group() != null) {
                creator.setPlacementGroup(slot.group(), slot.bundle());
            }
            into.add(creator.remote());
        }
    }

    /**
     * Numbers the created actors and joins them into a group.
     *
     * @param created the actors, in creation order
     * @param ranksByNode give the actors of one node neighbouring ranks
     * @param startWait how long the actors may take to start
     * @param timeout how long joining, and later each collective, may take
     * @param transport how the members will reach each other
     * @return the members, by rank
     */
    @SuppressWarnings("unchecked")
    static <W extends CollectiveWorker> Members<W> join(List<ActorHandle<W>> created,
            boolean ranksByNode, Duration startWait, Duration timeout, TransportKind transport) {
        List<ObjectRef<WorkerInfo>> where = new ArrayList<>();
        for (ActorHandle<W> a : created) {
            where.add(a.task(CollectiveWorker::locate).remote());
        }
        List<WorkerInfo> located = Gather.await(where, List.of(), "starting", startWait);
        List<String> nodes = located.stream().map(WorkerInfo::nodeId).toList();
        int[] order = ranksByNode ? Topology.ranksByNode(nodes)
                : java.util.stream.IntStream.range(0, created.size()).toArray();
        List<ActorHandle<W>> actors = new ArrayList<>();
        List<String> nodeOfRank = new ArrayList<>();
        List<ActorHandle<CollectiveWorker>> peers = new ArrayList<>();
        for (int member : order) {
            actors.add(created.get(member));
            nodeOfRank.add(nodes.get(member));
            peers.add((ActorHandle<CollectiveWorker>) (ActorHandle<?>) created.get(member));
        }
        GroupLinks links = links(actors, transport, timeout);
        List<ObjectRef<WorkerInfo>> joins = new ArrayList<>();
        for (int r = 0; r < actors.size(); r++) {
            joins.add(actors.get(r).task(CollectiveWorker::join, r, actors.size(), peers,
                    nodeOfRank, links).remote());
        }
        return new Members<>(actors, Gather.await(joins, List.of(), "joining the group",
                timeout), java.util.Arrays.stream(order).boxed().toList());
    }

    /**
     * For direct links, opens every member's endpoint under a new token and collects the
     * addresses by rank: each on its node's IP, which every node can reach.
     */
    private static <W extends CollectiveWorker> GroupLinks links(List<ActorHandle<W>> actors,
            TransportKind transport, Duration timeout) {
        if (transport == TransportKind.RAY || actors.size() == 1) {
            return GroupLinks.viaRay(timeout.toMillis());
        }
        long token = new java.security.SecureRandom().nextLong();
        List<ObjectRef<String>> listening = new ArrayList<>();
        for (ActorHandle<W> a : actors) {
            listening.add(a.task(CollectiveWorker::listen, token).remote());
        }
        return GroupLinks.direct(timeout.toMillis(), token,
                Gather.await(listening, List.of(), "opening direct links", timeout));
    }
}

package dev.dml.ray.collective;

import dev.dml.events.WorkerInfo;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Joins a LOCAL-mode group's actors again, in their ranks, as if they ran on the given nodes:
 * what a recovery that moved ranks between nodes leaves behind, where every actor is in this
 * one process. The ranks then reach each other through Ray.
 */
public final class NodeLayouts {

    private NodeLayouts() {}

    /**
     * Rejoins the group's actors.
     *
     * @param group the group, whose ranks stay
     * @param nodeOfRank the node each rank is said to run on
     * @param timeout the collectives' timeout
     */
    @SuppressWarnings("unchecked")
    public static void rejoin(ActorGroup<?> group, List<String> nodeOfRank, Duration timeout) {
        List<ActorHandle<CollectiveWorker>> peers = new ArrayList<>();
        for (int r = 0; r < group.size(); r++) {
            peers.add((ActorHandle<CollectiveWorker>) (ActorHandle<?>) group.actor(r));
        }
        GroupLinks links = GroupLinks.viaRay(timeout.toMillis());
        List<ObjectRef<WorkerInfo>> joins = new ArrayList<>();
        for (int r = 0; r < peers.size(); r++) {
            joins.add(peers.get(r).task(CollectiveWorker::join, r, peers.size(), peers,
                    nodeOfRank, links).remote());
        }
        Gather.await(joins, List.of(), "joining again", timeout);
    }
}

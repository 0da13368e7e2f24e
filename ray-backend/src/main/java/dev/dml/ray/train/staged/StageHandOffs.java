package dev.dml.ray.train.staged;

import dev.dml.DmlException;
import dev.dml.ray.collective.Gather;
import dev.dml.options.TransportKind;
import dev.dml.ray.train.worker.TrainWorker;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a staged job's stages hand micro-batches to each other: over direct links between each
 * replica's stages ({@link dev.dml.ray.collective.StageLinks}), or through Ray's object
 * references, one driver-submitted task per micro-batch and hop, where links cannot form or
 * {@code --transport ray} asks for it. One way for the whole job, said in its metrics.
 */
public final class StageHandOffs {

    private static final Logger LOG = LoggerFactory.getLogger(StageHandOffs.class);
    private static final SecureRandom TOKENS = new SecureRandom();

    private final boolean direct;
    private final String description;

    private StageHandOffs(boolean direct, String description) {
        this.direct = direct;
        this.description = description;
    }

    /**
     * Links every replica's stages to each other, when the transport allows it.
     *
     * @param byReplica the actors, by replica, then stage
     * @param nodes their node ids, by replica, then stage
     * @param kind the job's {@code --transport}
     * @param timeout how long one hand-off may be waited for
     * @return how the hand-offs go
     */
    public static StageHandOffs link(List<List<ActorHandle<TrainWorker>>> byReplica,
            List<List<String>> nodes, TransportKind kind, Duration timeout) {
        if (byReplica.get(0).size() == 1) {
            return new StageHandOffs(false, ""); // one stage hands nothing on
        }
        if (kind == TransportKind.RAY) {
            return new StageHandOffs(false, "ray");
        }
        try {
            for (int r = 0; r < byReplica.size(); r++) {
                List<ActorHandle<TrainWorker>> stages = byReplica.get(r);
                ArrayList<String> nodesOfStages = new ArrayList<>(nodes.get(r));
                long token = TOKENS.nextLong();
                List<ObjectRef<String>> listening = new ArrayList<>();
                stages.forEach(a -> listening.add(a.task(TrainWorker::listenStages, token)
                        .remote()));
                ArrayList<String> endpoints = new ArrayList<>(
                        Gather.await(listening, List.of(), "listenStages", timeout));
                List<ObjectRef<Boolean>> linked = new ArrayList<>();
                for (int s = 0; s < stages.size(); s++) {
                    linked.add(stages.get(s).task(TrainWorker::linkStages, s, endpoints,
                            nodesOfStages, token, timeout.toMillis()).remote());
                }
                Gather.await(linked, List.of(), "linkStages", timeout);
            }
            return new StageHandOffs(true, "tcp");
        } catch (RuntimeException e) {
            LOG.warn("stage hand-offs fall back to Ray's object references", e);
            return new StageHandOffs(false, "ray (" + DmlException.firstLine(e.getMessage()) + ")");
        }
    }

    /** True when each stage runs its schedule itself over the direct links. */
    boolean direct() {
        return direct;
    }

    /**
     * Says how the hand-offs go, for a worker's links in the metrics: e.g. {@code tcp; stage
     * hand-offs tcp}.
     *
     * @param groupLinks how the worker reaches its stage's replicas
     * @return both
     */
    public String describe(String groupLinks) {
        if (description.isEmpty()) {
            return groupLinks;
        }
        return (groupLinks.isEmpty() ? "" : groupLinks + "; ") + "stage hand-offs " + description;
    }
}

package dev.dml.ray.ps;

import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A {@link ServerLink} over Ray actor calls: one call per server, all in flight at once, each
 * carrying that server's partition as bytes. Crosses Ray to the worker, so a plain Serializable
 * class.
 */
public final class RayServerLink implements ServerLink, Serializable {

    private static final long serialVersionUID = 1L;

    private final List<ActorHandle<ParameterServer>> servers;
    private final ServerPartitions partitions;
    private final int client;
    private final long answerMillis;
    private transient long bytes;

    /**
     * A link.
     *
     * @param servers the servers, in the order of the partitions
     * @param partitions which tensors each holds
     * @param client this client's index at the servers
     * @param answerMillis the longest one call may take (a gate's wait included)
     */
    public RayServerLink(List<ActorHandle<ParameterServer>> servers, ServerPartitions partitions,
            int client, long answerMillis) {
        this.servers = List.copyOf(servers);
        this.partitions = partitions;
        this.client = client;
        this.answerMillis = answerMillis;
    }

    @Override
    public float[] pushPull(long clock, float[] delta) {
        return gather("pushPull", s -> {
            byte[] b = FloatBytes.of(partitions.gather(delta, s));
            bytes += b.length;
            return servers.get(s).task(ParameterServer::pushPull, client, clock, b)
                    .setConcurrencyGroup(ParameterServer.SERVING).remote();
        });
    }

    @Override
    public float[] pull() {
        return gather("pull", s -> servers.get(s).task(ParameterServer::pull).remote());
    }

    @Override
    public long bytes() {
        return bytes;
    }

    private float[] gather(String what, IntFunction<ObjectRef<byte[]>> call) {
        List<ObjectRef<byte[]>> refs = new ArrayList<>();
        for (int s = 0; s < servers.size(); s++) {
            refs.add(call.apply(s));
        }
        float[] out = new float[partitions.total()];
        for (int s = 0; s < refs.size(); s++) {
            byte[] partition = ServerFailure.await(refs.get(s), s, servers.size(), what,
                    answerMillis);
            bytes += partition == null ? 0 : partition.length;
            partitions.scatter(FloatBytes.floats(partition), s, out);
        }
        return out;
    }
}

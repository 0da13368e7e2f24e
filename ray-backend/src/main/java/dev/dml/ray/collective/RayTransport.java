package dev.dml.ray.collective;

import dev.dml.DmlException;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.exception.RayException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Sends chunks actor to actor through Ray's object store: the sender {@code Ray.put}s the chunk
 * once and passes the {@link ObjectRef} to each receiver's {@link CollectiveWorker#receive};
 * Ray resolves the reference in the receiver, so the driver never sees the data.
 */
final class RayTransport implements Transport {

    private final int rank;
    private final List<ActorHandle<CollectiveWorker>> peers;

    RayTransport(int rank, List<ActorHandle<CollectiveWorker>> peers) {
        this.rank = rank;
        this.peers = List.copyOf(peers);
    }

    @Override
    public Delivery send(int[] to, long seq, int step, byte[] payload) {
        ObjectRef<byte[]> ref = Ray.put(payload);
        List<ObjectRef<Boolean>> acks = new ArrayList<>(to.length);
        for (int r : to) {
            acks.add(peers.get(r)
                    .task(CollectiveWorker::receive, rank, seq, step, ref)
                    .setConcurrencyGroup(CollectiveWorker.DELIVERY_GROUP)
                    .remote());
        }
        return timeout -> await(acks, to, timeout);
    }

    @Override
    public String describe() {
        return "ray";
    }

    private void await(List<ObjectRef<Boolean>> acks, int[] to, Duration timeout) {
        for (int i = 0; i < acks.size(); i++) {
            try {
                Ray.get(acks.get(i), timeout.toMillis());
            } catch (RayException e) {
                throw new CollectiveException(
                        "Rank " + rank + " could not deliver a chunk to rank " + to[i] + ": "
                                + DmlException.firstLine(e.getMessage()) + ".",
                        "Rank " + to[i] + " may have died; close the group and open a new one.",
                        e);
            }
        }
    }
}

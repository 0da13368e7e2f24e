package dev.dml.ray.train.worker;

import dev.dml.Closeables;
import dev.dml.options.TrainOptions;
import dev.dml.events.StepPhase;
import dev.dml.ray.data.BatchStaging;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.ps.NodeAggregatedLink;
import dev.dml.ray.ps.ServerGroup;
import dev.dml.ray.ps.ServerLink;
import java.util.Arrays;
import java.util.List;

/**
 * A data-parallel rank's run of asynchronous steps ({@code --sync async|ssp:S}), in its {@link
 * TrainWorker}: each a forward and backward on the local batch and a step of the rank's own
 * optimizer, whose change to the parameters it pushes to the parameter servers; it trains on
 * the parameters they send back, which hold every other rank's changes so far. No rank waits
 * for another, but under {@code ssp:S} the servers hold a rank back until the slowest is at
 * most S steps behind it.
 *
 * <p>The rows are those of the synchronous job: step {@code t} of an epoch trains rows {@code
 * [t*B, (t+1)*B)} of the shard in the epoch's reading order. Each change is applied as it
 * comes (Downpour SGD's rule), so an epoch takes W updates of one batch each where the
 * synchronous job takes one of W batches. The optimizer state (Adam's moments) stays with each
 * rank; the servers hold only the parameters. The rank knows the servers only as a {@link
 * ServerLink}; which transport moves the bytes is the link's business.
 */
public final class AsyncStep implements StepStrategy {

    private final ServerGroup servers;
    private final List<long[]> shapes;
    private final CollectiveWorker rank;
    /** The link for {@link #linkedFor}; opened again when the group's layout changes. */
    private ServerLink link;
    /** The layout the link was opened for: rank, world size and {@code nodePlace()}. */
    private int[] linkedFor;
    /** The clients that push in that layout: the workers, or one leader per node. */
    private int clients;
    /** The parameters the servers last sent: the base of the next change. */
    private float[] base;
    /** The shard's reading order in {@link #orderEpoch}; null without shuffling. */
    private int[] order;
    private int orderEpoch = -1;
    /** Steps completed over the job, as of the last step. */
    private volatile long completed = -1;

    /** Shuffled batches, staged into arrays reused from step to step. */
    private final BatchStaging staging = new BatchStaging();

    AsyncStep(ServerGroup servers, ModelStage m, CollectiveWorker rank) {
        this.rank = rank;
        this.servers = servers;
        this.shapes = m.parameterShapes();
        link();
    }

    /**
     * This rank's link to the servers for the group as it is now: its own, or, when the
     * servers count one client per node, through its node's leader. A recovery or resize joins
     * the ranks again, maybe on other nodes, which changes who leads a node and how many
     * clients push; the link is then opened anew, so no node has two leaders or none.
     */
    private ServerLink link() {
        int[] place = rank.nodePlace();
        int me = rank.info().rank();
        int size = rank.info().worldSize();
        int[] layout = {me, size, place[0], place[1], place[2]};
        if (link != null && Arrays.equals(layout, linkedFor)) {
            return link;
        }
        ServerLink old = link;
        link = null;
        Closeables.closeAll(old);
        clients = ServerGroup.clients(place[1], size);
        boolean leads = place[2] == 1;
        link = clients == size ? servers.link(shapes, me)
                : new NodeAggregatedLink(servers.link(shapes, place[0]),
                        new NodeAggregatedLink.Node() {
                            @Override
                            public float[] sum(float[] data) {
                                return rank.nodeSum(data);
                            }

                            @Override
                            public float[] fromLeader(float[] data) {
                                return rank.nodeBroadcast(data);
                            }

                            @Override
                            public boolean leads() {
                                return leads;
                            }
                        });
        linkedFor = layout;
        return link;
    }

    /**
     * Seeds the servers with this replica's parameters (rank 0, before a run of steps), for
     * the clients of the group's layout now.
     */
    void seed(ModelStage m, long clock) {
        link();
        servers.seed(m.parameters(), shapes, clock, clients);
    }

    /** Takes the servers' parameters, as every rank does after a run: the replicas agree. */
    void pull(ModelStage m) {
        base = link().pull();
        m.setParameters(base);
    }

    @Override
    public StepsDone run(WorkerJob job, StepRange range) {
        ModelStage m = job.model();
        ShardArrays shard = job.data().train();
        WorkerConfig config = job.config();
        if (order == null || orderEpoch != range.epoch) {
            order = config.readOrder(range.epoch, rank.info().rank(), shard.rows());
            orderEpoch = range.epoch;
        }
        staging.keepOnly(List.of(shard));
        ServerLink to = link();
        int batchSize = config.options().get(TrainOptions.BATCH_SIZE);
        int n = range.count;
        float[] losses = new float[n];
        long[] compute = new long[n];
        long[] comm = new long[n];
        long[] bytes = new long[n];
        base = m.parameters();
        for (int i = 0; i < n; i++) {
            int from = (range.first + i) * batchSize;
            long t0 = System.nanoTime();
            try (ShardArrays.Rows b = staging.rows(shard, order, from, from + batchSize)) {
                m.clock().lap(StepPhase.BATCH, t0);
                losses[i] = m.trainBatch(b.features(), b.labels());
            }
            m.step();
            float[] delta = m.parameters();
            for (int j = 0; j < delta.length; j++) {
                delta[j] -= base[j];
            }
            long t1 = System.nanoTime();
            long sent = to.bytes();
            base = to.pushPull(range.globalFirst + i + 1, delta);
            bytes[i] = to.bytes() - sent;
            long t2 = System.nanoTime();
            m.setParameters(base);
            compute[i] = (t1 - t0) + (System.nanoTime() - t2);
            comm[i] = t2 - t1;
            completed = range.globalFirst + i + 1;
        }
        return new StepsDone(n, false, losses, compute, comm, bytes, new long[n], 0);
    }

    @Override
    public long completed() {
        return completed;
    }

    /** Closes the link's connections to the servers. */
    @Override
    public void close() {
        Closeables.closeAll(link, staging);
    }
}

package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dml.ray.ps.NodeAggregatedLink;
import dev.dml.ray.ps.ServerLink;
import dev.dml.ray.ps.PartitionState;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Per-node aggregation in front of a parameter server: four ranks on two nodes sum their
 * changes inside each node, only the two leaders push, and every rank gets the parameters
 * with all four changes in.
 */
class NodeAggregationTest {

    private final ExecutorService pool = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /** A link straight to an in-process shard, as one client. */
    private static ServerLink direct(PartitionState server, int client) {
        return new ServerLink() {
            @Override
            public float[] pushPull(long clock, float[] delta) {
                return server.pushPull(client, clock, delta);
            }

            @Override
            public float[] pull() {
                return server.pull();
            }

            @Override
            public long bytes() {
                return 0;
            }
        };
    }

    private static NodeAggregatedLink.Node node(Communicator c) {
        return new NodeAggregatedLink.Node() {
            @Override
            public float[] sum(float[] data) {
                return c.nodeSum(data);
            }

            @Override
            public float[] fromLeader(float[] data) {
                return c.nodeBroadcast(data);
            }

            @Override
            public boolean leads() {
                return c.nodePlace()[2] == 1;
            }
        };
    }

    @Test
    void twoNodesOfTwoRanksPushOncePerNodeAndAllGetEveryChange() throws Exception {
        Topology t = new Topology(List.of("a", "a", "b", "b"));
        List<Communicator> comms = CommunicatorTest.group(t, Duration.ofSeconds(10));
        PartitionState server = new PartitionState();
        server.seed(new float[] {100, 200, 300}, 0, 2, 0, 10_000); // ssp:0, one client per node
        List<float[]> deltas = List.of(new float[] {1, 0, 0}, new float[] {2, 0, 0},
                new float[] {0, 10, 0}, new float[] {0, 20, 1});
        List<float[]> got = CommunicatorTest.runAll(pool, comms, deltas, (c, d) ->
                new NodeAggregatedLink(direct(server, c.nodePlace()[0]), node(c))
                        .pushPull(1, d));
        for (float[] p : got) {
            assertArrayEquals(new float[] {103, 230, 301}, p);
        }
        assertEquals(2, server.pushes(), "only the nodes' leaders pushed");
        assertEquals(List.of(0, 1), comms.stream().filter(c -> c.nodePlace()[2] == 1)
                .map(c -> c.nodePlace()[0]).toList());
    }
}

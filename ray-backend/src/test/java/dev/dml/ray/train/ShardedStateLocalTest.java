package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.Resize;
import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * A sharded optimizer's state ({@code --shard-optimizer}) in Ray's LOCAL mode: its checkpoints
 * hold the state gathered from every rank, byte for byte the unsharded job's, so either job
 * resumes from the other's checkpoint and ends where an uninterrupted one does; and an elastic
 * job that grows re-shards from the gathered state and ends with the unsharded job's
 * parameters.
 */
class ShardedStateLocalTest {

    private static final Table TABLE = SyntheticFraud.generate(2 * 16 * 10, 11);

    @TempDir
    Path dir;

    @BeforeAll
    static void startRay() throws IOException {
        LocalRay.start();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }

    /** The job of {@link ShardOptimizerLocalTest}, with one name for both forms. */
    private static TrainSpecBuilder job(int epochs, boolean shard, Path ck) {
        return ShardOptimizerLocalTest.job(TABLE, OptimizerSpec.adam(0.01f), shard, "ck")
                .optEpochs(epochs).optName("ck").optCheckpoints(ck, 5);
    }

    private static List<byte[]> states(Path ck) throws IOException {
        Path folder;
        try (Stream<Path> s = Files.list(ck)) {
            folder = s.toList().get(0);
        }
        List<byte[]> states = new java.util.ArrayList<>();
        for (Path f : Checkpoints.list(folder)) {
            states.add(Checkpoints.read(f).states().get(0));
        }
        return states;
    }

    @Test
    void checkpointsHoldTheUnshardedStateAndEachFormResumesTheOther() throws IOException {
        Path sharded = dir.resolve("sharded");
        Path whole = dir.resolve("whole");
        TrainLocalTest.run(job(1, true, sharded).build(), new FakeDriverContext());
        TrainLocalTest.run(job(1, false, whole).build(), new FakeDriverContext());
        List<byte[]> a = states(sharded);
        List<byte[]> b = states(whole);
        assertEquals(b.size(), a.size());
        assertTrue(a.size() >= 2, "checkpoints at steps 5 and 10");
        for (int i = 0; i < a.size(); i++) {
            assertArrayEquals(b.get(i), a.get(i), "checkpoint " + i + ": the same bytes");
        }
        float[] straight = TrainLocalTest.run(job(2, false, dir.resolve("straight")).build(),
                new FakeDriverContext()).parameters();
        TrainResult fromSharded = TrainLocalTest.run(job(2, false, sharded).optResume(true)
                .build(), new FakeDriverContext());
        TrainResult fromWhole = TrainLocalTest.run(job(2, true, whole).optResume(true).build(),
                new FakeDriverContext());
        assertEquals(10, fromSharded.resumedFromStep());
        assertEquals(10, fromWhole.resumedFromStep());
        assertArrayEquals(straight, fromSharded.parameters(), "unsharded from a sharded state");
        assertArrayEquals(straight, fromWhole.parameters(), "sharded from an unsharded state");
    }

    @Test
    void aShardedJobThatGrowsEndsWithTheUnshardedJobsParameters() {
        Table t = SyntheticFraud.generate(4 * 16 * 6, 9);
        float[][] ends = new float[2][];
        for (boolean shard : new boolean[] {false, true}) {
            AtomicInteger reads = new AtomicInteger();
            // two workers at the start; a node joins before the third call (ElasticLocalTest)
            WorkerRoom room = () -> reads.incrementAndGet() < 4 ? 2 : 4;
            FakeDriverContext ctx = new FakeDriverContext();
            TrainResult r = ElasticLocalTest.run(ElasticLocalTest.job(t, "grows" + shard)
                    .optWorkers(2, 4).optShardOptimizer(shard).build(), room, ctx);
            List<Resize> resizes = ctx.events(Resize.class);
            assertEquals(1, resizes.size(), "" + resizes);
            assertEquals(4, resizes.get(0).to());
            assertEquals(12, r.globalSteps());
            ends[shard ? 1 : 0] = r.parameters();
        }
        assertArrayEquals(ends[0], ends[1], "re-sharded over 4 ranks from the gathered state");
    }
}

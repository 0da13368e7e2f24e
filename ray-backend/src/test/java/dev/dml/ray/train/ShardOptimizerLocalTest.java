package dev.dml.ray.train;

import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.events.ProcessSample;
import dev.dml.events.Resize;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.recovery.Checkpoints;
import dev.dml.ray.train.recovery.WorkerRoom;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.ElasticLocalTest;
import dev.dml.ray.train.runner.TrainLocalTest;
import dev.dml.ray.train.settings.Strategy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * {@code --shard-optimizer} (ZeRO-1) in Ray's LOCAL mode: a sharded job trains to bitwise the
 * parameters of the same job unsharded, since each rank's range gets the same float operations
 * in the same order, in half the optimizer state per worker; its checkpoints hold the state
 * gathered from every rank, byte for byte the unsharded job's, so either job resumes from the
 * other's checkpoint; an elastic job that grows re-shards from the gathered state; and what
 * cannot be sharded is refused in one line.
 */
@ExtendWith(LocalRayExtension.class)
class ShardOptimizerLocalTest {

    private static final Table TABLE = SyntheticFraud.generate(2 * 16 * 10, 11);

    @TempDir
    Path dir;

    static TrainSpecBuilder job(Table t, OptimizerSpec opt, boolean shard, String name) {
        return TrainLocalTest.fraudJob(t, opt, 2, 16).optWorkers(2).optReportEvery(5)
                .optShardOptimizer(shard).optName(name + (shard ? "-sharded" : "-whole"));
    }

    private static float[] train(TrainSpecBuilder b) {
        return result(b).parameters();
    }

    private static TrainResult result(TrainSpecBuilder b) {
        TrainResult r = TrainLocalTest.run(b.build(), new FakeDriverContext());
        assertEquals(20, r.globalSteps());
        return r;
    }

    /** Each worker's optimizer state in bytes, as its last report says. */
    private static List<Long> stateBytes(TrainResult r) {
        return r.steps().get(r.steps().size() - 1).workers().stream()
                .map(ProcessSample::optimizerStateBytes).toList();
    }

    @Test
    void adamWithWeightDecayShardedEqualsUnshardedBitForBitInHalfTheState() {
        OptimizerSpec adam = OptimizerSpec.adam(0.01f).withWeightDecay(0.01f);
        TrainResult whole = result(job(TABLE, adam, false, "adam"));
        TrainResult sharded = result(job(TABLE, adam, true, "adam"));
        assertArrayEquals(whole.parameters(), sharded.parameters(),
                "the sharded job trains to the same parameters");
        long all = 2L * Float.BYTES * whole.parameters().length; // Adam's two moments
        assertEquals(List.of(all, all), stateBytes(whole));
        List<Long> halves = stateBytes(sharded);
        assertEquals(all, halves.get(0) + halves.get(1), "" + halves);
        for (long b : halves) {
            assertTrue(Math.abs(b - all / 2) <= 2 * Float.BYTES, "half each: " + halves);
        }
    }

    @Test
    void sgdWithMomentumAndAccumulationShardedEqualsUnshardedBitForBit() {
        OptimizerSpec sgd = OptimizerSpec.sgd(0.05f, 0.9f);
        float[] whole = train(job(TABLE, sgd, false, "sgd").opt(TrainOptions.ACCUMULATE, 2)
                .optEpochs(4));
        float[] sharded = train(job(TABLE, sgd, true, "sgd").opt(TrainOptions.ACCUMULATE, 2)
                .optEpochs(4));
        assertArrayEquals(whole, sharded);
    }

    /**
     * With {@code --clip-norm} each rank sums its range's squares and the ranks add their sums,
     * where the unsharded job adds every square in one order: the norms may differ in the last
     * bits of a double, and a scale rounded to float by one ulp (6e-8 relative) at most, so the
     * parameters agree to 1e-6 relative after 20 steps.
     */
    @Test
    void clippedByTheGlobalNormShardedAgreesWithUnsharded() {
        OptimizerSpec adam = OptimizerSpec.adam(0.01f).withClipNorm(0.05f);
        float[] whole = train(job(TABLE, adam, false, "clip"));
        float[] sharded = train(job(TABLE, adam, true, "clip"));
        TrainLocalTest.assertClose(whole, sharded, 1e-6, 1e-7);
        float[] unclipped = train(job(TABLE, OptimizerSpec.adam(0.01f), false, "noclip"));
        boolean differ = false;
        for (int i = 0; i < whole.length && !differ; i++) {
            differ = Math.abs(whole[i] - unclipped[i]) > 1e-4;
        }
        assertEquals(true, differ, "the clip norm is small enough to clip");
    }

    @Test
    void whatCannotBeShardedIsRefusedInOneLine() {
        OptimizerSpec adam = OptimizerSpec.adam(0.01f);
        assertEquals("--shard-optimizer splits the optimizer of data-parallel workers, but one"
                + " worker has no peer to split it with.", refusal(job(TABLE, adam, true, "one")
                        .optWorkers(1)).what());
        DmlException compress = refusal(job(TABLE, adam, true, "c").optCompress("fp16"));
        assertEquals("--shard-optimizer splits the optimizer of data-parallel workers, but"
                + " --compress sends the gradients compressed, not as the exact sums each"
                + " worker's range needs.", compress.what());
        assertEquals("Leave --shard-optimizer out, or leave --compress out.", compress.hint());
        String async = refusal(job(TABLE, adam, true, "a").optSync("async")).what();
        assertEquals("--shard-optimizer splits the optimizer of data-parallel workers, but"
                + " --sync async updates through parameter servers, which hold the optimizer"
                + " themselves.", async);
        assertEquals("--shard-optimizer splits the optimizer of data-parallel workers, but"
                + " --bucket-mb all-reduces whole buckets during the backward, while the sharded"
                + " optimizer reduce-scatters the gradients after it.",
                refusal(job(TABLE, adam, true, "b").opt(TrainOptions.BUCKET_MB, 2.0)).what());
        DmlException staged = refusal(job(TABLE, adam, true, "p")
                .optStrategy(Strategy.pipeline(2, 2, PipelineSchedule.GPIPE)));
        assertEquals(true, staged.speaking(Vocabulary.NOTEBOOK).what().contains(
                "already splits the model over stages"), staged.what());
        DmlException gpu = refusal(job(TABLE, adam, true, "g").optGpusPerWorker(1));
        assertEquals("Leave --shard-optimizer out, or leave --gpus-per-worker out.",
                gpu.hint());
        DmlException java = assertThrows(DmlException.class, () -> job(TABLE, adam, true, "j")
                .optWorkers(1).build());
        assertEquals("optShardOptimizer splits the optimizer of data-parallel workers, but one"
                + " worker has no peer to split it with.",
                java.speaking(Vocabulary.JAVA).what());
    }

    private static DmlException refusal(TrainSpecBuilder b) {
        DmlException e = assertThrows(DmlException.class, b::build);
        return e.speaking(Vocabulary.NOTEBOOK);
    }

    /** The Adam job with checkpoints every 5 steps, one name for both forms (one folder). */
    private static TrainSpecBuilder checkpointed(int epochs, boolean shard, Path ck) {
        return job(TABLE, OptimizerSpec.adam(0.01f), shard, "ck")
                .optEpochs(epochs).optName("ck").optCheckpoints(ck, 5);
    }

    private static List<byte[]> states(Path ck) throws IOException {
        Path folder;
        try (Stream<Path> s = Files.list(ck)) {
            folder = s.toList().get(0);
        }
        List<byte[]> states = new ArrayList<>();
        for (Path f : Checkpoints.list(folder)) {
            states.add(Checkpoints.read(f).states().get(0));
        }
        return states;
    }

    /** A job of {@code epochs} epochs, sharded or not, with checkpoints every 5 steps in ck. */
    interface Checkpointed {
        TrainSpecBuilder job(int epochs, boolean shard, Path ck);
    }

    @Test
    void checkpointsHoldTheUnshardedStateAndEachFormResumesTheOther() throws IOException {
        assertCheckpointsUnshardedAndEachFormResumesTheOther(dir,
                ShardOptimizerLocalTest::checkpointed);
    }

    /**
     * The sharded job's checkpoints are the unsharded job's, byte for byte, and a job resumed
     * from either form's checkpoint at step 10 ends where a straight run of the other does.
     */
    static void assertCheckpointsUnshardedAndEachFormResumesTheOther(Path dir,
            Checkpointed checkpointed) throws IOException {
        Path sharded = dir.resolve("sharded");
        Path whole = dir.resolve("whole");
        TrainLocalTest.run(checkpointed.job(1, true, sharded).build(), new FakeDriverContext());
        TrainLocalTest.run(checkpointed.job(1, false, whole).build(), new FakeDriverContext());
        List<byte[]> a = states(sharded);
        List<byte[]> b = states(whole);
        assertEquals(b.size(), a.size());
        assertTrue(a.size() >= 2, "checkpoints at steps 5 and 10");
        for (int i = 0; i < a.size(); i++) {
            assertArrayEquals(b.get(i), a.get(i), "checkpoint " + i + ": the same bytes");
        }
        float[] straight = TrainLocalTest.run(checkpointed.job(2, false,
                dir.resolve("straight")).build(), new FakeDriverContext()).parameters();
        TrainResult fromSharded = TrainLocalTest.run(checkpointed.job(2, false, sharded)
                .optResume(true).build(), new FakeDriverContext());
        TrainResult fromWhole = TrainLocalTest.run(checkpointed.job(2, true, whole)
                .optResume(true).build(), new FakeDriverContext());
        assertEquals(10, fromSharded.resumedFromStep());
        assertEquals(10, fromWhole.resumedFromStep());
        assertArrayEquals(straight, fromSharded.parameters(), "unsharded from a sharded state");
        assertArrayEquals(straight, fromWhole.parameters(), "sharded from an unsharded state");
    }

    @Test
    void aShardedJobThatGrowsEndsWithTheUnshardedJobsParameters() {
        assertGrowsToTheUnshardedParameters("grows", (b, shard) -> b.optShardOptimizer(shard));
    }

    /**
     * An elastic job of two workers that grows to four ({@link ElasticLocalTest}), unsharded
     * and sharded by {@code shard}, ends with the same parameters either way.
     */
    static void assertGrowsToTheUnshardedParameters(String name,
            BiFunction<TrainSpecBuilder, Boolean, TrainSpecBuilder> shard) {
        Table t = SyntheticFraud.generate(4 * 16 * 6, 9);
        float[][] ends = new float[2][];
        for (boolean sharded : new boolean[] {false, true}) {
            AtomicInteger reads = new AtomicInteger();
            // two workers at the start; a node joins before the third call (ElasticLocalTest)
            WorkerRoom room = () -> reads.incrementAndGet() < 4 ? 2 : 4;
            FakeDriverContext ctx = new FakeDriverContext();
            TrainResult r = ElasticLocalTest.run(shard.apply(ElasticLocalTest.job(t, name
                    + sharded).optWorkers(2, 4), sharded).build(), room, ctx);
            List<Resize> resizes = ctx.events(Resize.class);
            assertEquals(1, resizes.size(), "" + resizes);
            assertEquals(4, resizes.get(0).to());
            assertEquals(12, r.globalSteps());
            ends[sharded ? 1 : 0] = r.parameters();
        }
        assertArrayEquals(ends[0], ends[1], "re-sharded over 4 ranks from the gathered state");
    }
}

package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.events.ProcessSample;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.TrainLocalTest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * {@code --shard-gradients} (ZeRO-2) in Ray's LOCAL mode, beside {@link
 * ShardOptimizerLocalTest}'s ZeRO-1. The fraud MLP (31-16-2, 546 parameters) cut at {@code
 * --bucket-mb 0.0001} (25 floats) has two buckets, one per layer (512 and 34 parameters): each
 * rank owns the ring's chunk of each. The job trains to bitwise the unsharded job's parameters
 * with the same buckets, and with one bucket to the ZeRO-1 job's; its workers hold half the
 * optimizer state and, of gradient buffers, their chunks and an array of one piece only; its
 * checkpoints are the unsharded job's, byte for byte, and either form resumes the other; an
 * elastic job that grows re-shards every bucket.
 */
@ExtendWith(LocalRayExtension.class)
class ShardGradientsLocalTest {

    private static final Table TABLE = SyntheticFraud.generate(2 * 16 * 10, 11);
    /** Two buckets of the fraud MLP: its two layers. */
    private static final double TWO_BUCKETS = 0.0001;
    private static final int PARAMETERS = 546;

    @TempDir
    Path dir;

    /** The job unsharded, ZeRO-1 ({@code z == 1}) or ZeRO-2 ({@code z == 2}). */
    private static TrainSpecBuilder job(OptimizerSpec opt, int z, double bucketMb,
            String name) {
        TrainSpecBuilder b = z2(opt, name + "-z" + z).opt(TrainOptions.BUCKET_MB, bucketMb);
        return z == 2 ? b : b.optShardGradients(false).optShardOptimizer(z == 1);
    }

    private static TrainResult result(TrainSpecBuilder b) {
        TrainResult r = TrainLocalTest.run(b.build(), new FakeDriverContext());
        assertEquals(20, r.globalSteps());
        return r;
    }

    /** Each worker's count in its last report. */
    private static List<Long> last(TrainResult r, ToLongFunction<ProcessSample> count) {
        return r.steps().get(r.steps().size() - 1).workers().stream().mapToLong(count)
                .boxed().toList();
    }

    @Test
    void adamShardedByBucketEqualsUnshardedBitForBitInSmallerBuffers() {
        OptimizerSpec adam = OptimizerSpec.adam(0.01f).withWeightDecay(0.01f);
        TrainResult whole = result(job(adam, 0, TWO_BUCKETS, "adam"));
        TrainResult z2 = result(job(adam, 2, TWO_BUCKETS, "adam"));
        assertArrayEquals(whole.parameters(), z2.parameters(),
                "ZeRO-2 trains to the unsharded job's parameters with the same buckets");
        long all = 2L * Float.BYTES * PARAMETERS; // Adam's two moments
        List<Long> state = last(z2, ProcessSample::optimizerStateBytes);
        assertEquals(all, state.get(0) + state.get(1), "" + state);
        long flat = (long) Float.BYTES * PARAMETERS;
        assertEquals(List.of(flat, flat), last(whole, ProcessSample::gradientBufferBytes));
        List<Long> buffers = last(z2, ProcessSample::gradientBufferBytes);
        for (int w = 0; w < 2; w++) {
            // its chunks (the ranges of its optimizer state) and one array of a piece: a 25
            // floats' slice of each rank's chunk, 13 floats each at most
            long piece = buffers.get(w) - state.get(w) / 2;
            assertTrue(piece > 0 && piece <= 2 * 13 * Float.BYTES, buffers + " " + state);
            assertTrue(buffers.get(w) < 0.6 * flat, buffers + " against " + flat);
        }
    }

    @Test
    void oneBucketIsZeroOnesRangeAndTrainsToItsParameters() {
        OptimizerSpec adam = OptimizerSpec.adam(0.01f);
        TrainResult z1 = result(job(adam, 1, 0, "one"));
        TrainResult z2 = result(job(adam, 2, 0, "one"));
        assertArrayEquals(z1.parameters(), z2.parameters());
        assertEquals(last(z1, ProcessSample::optimizerStateBytes),
                last(z2, ProcessSample::optimizerStateBytes), "the same ranges");
        // the default 1 MB is one bucket of this model too
        TrainResult byDefault = result(z2(adam, "default"));
        assertArrayEquals(z1.parameters(), byDefault.parameters());
    }

    @Test
    void sgdWithMomentumAndAccumulationShardedByBucketEqualsUnshardedBitForBit() {
        OptimizerSpec sgd = OptimizerSpec.sgd(0.05f, 0.9f);
        float[] whole = result(job(sgd, 0, TWO_BUCKETS, "sgd").opt(TrainOptions.ACCUMULATE, 2)
                .optEpochs(4)).parameters();
        float[] z2 = result(job(sgd, 2, TWO_BUCKETS, "sgd").opt(TrainOptions.ACCUMULATE, 2)
                .optEpochs(4)).parameters();
        assertArrayEquals(whole, z2, "two batches a step add up in the engine's gradients");
    }

    /** As ZeRO-1's: each rank's squares, summed over the ranks; see ShardOptimizerLocalTest. */
    @Test
    void clippedByTheGlobalNormAgreesWithUnsharded() {
        OptimizerSpec adam = OptimizerSpec.adam(0.01f).withClipNorm(0.05f);
        float[] whole = result(job(adam, 0, TWO_BUCKETS, "clip")).parameters();
        float[] z2 = result(job(adam, 2, TWO_BUCKETS, "clip")).parameters();
        TrainLocalTest.assertClose(whole, z2, 1e-6, 1e-7);
    }

    @Test
    void whatCannotBeShardedIsRefusedInOneLine() {
        OptimizerSpec adam = OptimizerSpec.adam(0.01f);
        DmlException one = refusal(z2(adam, "w").optWorkers(1));
        assertEquals("--shard-gradients splits the gradients and the optimizer of data-parallel"
                + " workers, but one worker has no peer to split it with.", one.what());
        assertEquals("Leave --shard-gradients out, or raise --workers to 2 or more.",
                one.hint());
        DmlException off = refusal(z2(adam, "off").optShardOptimizer(false));
        assertEquals("--shard-gradients splits the gradients and the optimizer of data-parallel"
                + " workers, but --shard-optimizer is set to false, which keeps the optimizer"
                + " whole, while sharding the gradients shards it too.", off.what());
        assertEquals("Leave --shard-gradients out, or leave --shard-optimizer out.", off.hint());
        DmlException java = assertThrows(DmlException.class, () -> z2(adam, "j")
                .optShardOptimizer(false).build());
        assertTrue(java.speaking(Vocabulary.JAVA).what().startsWith("optShardGradients splits"
                + " the gradients and the optimizer of data-parallel workers, but"
                + " optShardOptimizer is set to false"), java.speaking(Vocabulary.JAVA).what());
        DmlException compress = refusal(z2(adam, "c").optCompress("fp16"));
        assertEquals("Leave --shard-gradients out, or leave --compress out.", compress.hint());
        DmlException z1Buckets = refusal(job(adam, 1, 2.0, "b"));
        assertEquals("Leave --shard-optimizer out, or leave --bucket-mb out, or add"
                + " --shard-gradients to reduce-scatter each bucket.", z1Buckets.hint());
    }

    /** ZeRO-2 with the default buckets. */
    private static TrainSpecBuilder z2(OptimizerSpec opt, String name) {
        return TrainLocalTest.fraudJob(TABLE, opt, 2, 16).optWorkers(2).optReportEvery(5)
                .optShardGradients(true).optName(name);
    }

    private static DmlException refusal(TrainSpecBuilder b) {
        DmlException e = assertThrows(DmlException.class, b::build);
        return e.speaking(Vocabulary.NOTEBOOK);
    }

    /** The Adam job in two buckets with checkpoints every 5 steps, one folder for both forms. */
    private static TrainSpecBuilder checkpointed(int epochs, boolean z2, Path ck) {
        return job(OptimizerSpec.adam(0.01f), z2 ? 2 : 0, TWO_BUCKETS, "ck").optEpochs(epochs)
                .optName("ck").optCheckpoints(ck, 5);
    }

    @Test
    void checkpointsHoldTheUnshardedStateAndEachFormResumesTheOther() throws IOException {
        ShardOptimizerLocalTest.assertCheckpointsUnshardedAndEachFormResumesTheOther(dir,
                ShardGradientsLocalTest::checkpointed);
    }

    /**
     * Two workers training four shards add two batches a step each (in the engine's gradients,
     * reduce-scattered bucket by bucket after the backward); at four, one each, the buckets
     * overlap the backward, and every bucket's chunks move to the new group.
     */
    @Test
    void aJobThatGrowsReshardsEveryBucketAndEndsWithTheUnshardedJobsParameters() {
        ShardOptimizerLocalTest.assertGrowsToTheUnshardedParameters("z2grows",
                (b, z2) -> b.optShardGradients(z2).opt(TrainOptions.BUCKET_MB, TWO_BUCKETS));
    }
}

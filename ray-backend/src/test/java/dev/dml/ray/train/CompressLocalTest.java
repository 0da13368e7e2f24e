package dev.dml.ray.train;

import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.events.StepMetrics;
import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.runner.TrainLocalTest;
import dev.dml.ray.train.settings.Strategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tech.tablesaw.api.Table;

/**
 * {@code --compress} in Ray's LOCAL mode: the compressed gradients train to nearly the
 * parameters of uncompressed ones, in fewer bytes, and what cannot be compressed is refused.
 */
@ExtendWith(LocalRayExtension.class)
class CompressLocalTest {

    private static TrainSpecBuilder job(Table t, String scheme, int workers) {
        return TrainLocalTest.fraudJob(t, OptimizerSpec.sgd(0.05f, 0.9f), 2, 16)
                .optCompress(scheme).optWorkers(workers).optReportEvery(5)
                .optName(scheme.replace(':', '-'));
    }

    private static long bytes(TrainResult r) {
        return r.steps().stream().mapToLong(StepMetrics::allReduceBytes).sum();
    }

    @Test
    void twoWorkersWithFp16EndNearTheParametersOfNone() {
        Table t = SyntheticFraud.generate(2 * 16 * 10, 11);
        TrainResult none = TrainLocalTest.run(job(t, "none", 2).build(), new FakeDriverContext());
        TrainResult fp16 = TrainLocalTest.run(job(t, "FP16", 2).build(),
                new FakeDriverContext());
        assertEquals(20, fp16.globalSteps());
        TrainLocalTest.assertClose(none.parameters(), fp16.parameters(), 1e-2, 1e-3);
        double ratio = (double) bytes(none) / bytes(fp16);
        assertEquals(2.0, ratio, 0.05, "fp16 halves the bytes on the wire");
        assertTrue(bytes(none) > 0);
        boolean differ = false;
        float[] a = none.parameters();
        float[] b = fp16.parameters();
        for (int i = 0; i < a.length && !differ; i++) {
            differ = a[i] != b[i];
        }
        assertTrue(differ, "fp16 really ran: its rounding moved some parameter");
    }

    @Test
    void oneWorkerAndStagedStrategiesRefuseInOneLine() {
        Table t = SyntheticFraud.generate(2 * 16 * 10, 11);
        DmlException one = assertThrows(DmlException.class, () -> job(t, "int8", 1).build());
        assertEquals("--compress int8 compresses the gradients workers exchange, but one worker"
                + " exchanges none.", one.speaking(Vocabulary.NOTEBOOK).what());
        DmlException staged = assertThrows(DmlException.class, () -> job(t, "fp16", 4)
                .optStrategy(Strategy.pipeline(2, 2, PipelineSchedule.GPIPE)).build());
        assertTrue(staged.speaking(Vocabulary.NOTEBOOK).what().startsWith("--compress"
                + " compresses the gradients of data parallelism;"), staged.what());
        DmlException bad = assertThrows(DmlException.class, () -> job(t, "topk:2", 2));
        assertEquals("optCompress must be none, fp16, bf16, int8, topk:RATIO[:WARMUP] with 0"
                + " < RATIO \u2264 1 and WARMUP \u2265 0 epochs, or powersgd:RANK with a whole"
                + " RANK \u2265 1, got topk:2.", bad.what());
    }

    /**
     * Top-k sending every element clears every element's momentum after each step (momentum
     * factor masking), so with SGD and momentum it is plain SGD on the mean gradient; with
     * {@code --accumulate 2} the workers' momentum sees each one's mean, not its sum, and the
     * step equals uncompressed SGD without momentum on the same batches.
     */
    @Test
    void topKSendingEverythingIsPlainSgdAlsoWhenAccumulating() {
        Table t = SyntheticFraud.generate(2 * 16 * 10, 11);
        OptimizerSpec plain = OptimizerSpec.sgd(0.05f, 0f);
        for (int k : new int[] {1, 2}) {
            TrainResult topk = TrainLocalTest.run(job(t, "topk:1", 2)
                    .opt(dev.dml.options.TrainOptions.ACCUMULATE, k).build(),
                    new FakeDriverContext());
            TrainResult none = TrainLocalTest.run(job(t, "none", 2).optOptimizer(plain)
                    .opt(dev.dml.options.TrainOptions.ACCUMULATE, k).build(),
                    new FakeDriverContext());
            assertEquals(none.globalSteps(), topk.globalSteps());
            TrainLocalTest.assertClose(none.parameters(), topk.parameters(), 1e-5, 1e-6);
        }
    }
}

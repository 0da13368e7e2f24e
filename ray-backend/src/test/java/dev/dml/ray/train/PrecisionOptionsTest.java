package dev.dml.ray.train;

import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.Precision;
import dev.dml.ray.train.runner.TrainLocalTest;
import dev.dml.ray.train.settings.Strategy;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * {@code --precision}: float32 by default, fp16 reaching the workers' config on a GPU job, and
 * what cannot work refused in one line before any worker starts, in the words of the surface.
 */
class PrecisionOptionsTest {

    private static final Table T = SyntheticFraud.generate(2 * 16 * 10, 12);

    private static TrainSpecBuilder job(Precision precision, double gpus) {
        return TrainSpec.builder().setTable(T).setColumns(SyntheticFraud.selection())
                .setModel(TrainLocalTest.mlp(T)).optBatchSize(16).optWorkers(2)
                .optGpusPerWorker(gpus).optPrecision(precision);
    }

    private static DmlException refused(TrainSpecBuilder b) {
        return assertThrows(DmlException.class, b::build);
    }

    @Test
    void float32IsTheDefaultAndFp16ReachesTheSpecOfAGpuJob() {
        TrainSpec plain = TrainSpec.builder().setTable(T).setColumns(SyntheticFraud.selection())
                .setModel(TrainLocalTest.mlp(T)).build();
        assertEquals("fp32", plain.get(TrainOptions.PRECISION).word());
        assertEquals("fp16", job(Precision.FP16, 1).build().get(TrainOptions.PRECISION).word());
    }

    @Test
    void whatCannotWorkIsRefusedInTheWordsOfTheSurface() {
        assertEquals("--precision bf16 needs bfloat16 tensors, which DJL 0.35.1's PyTorch engine"
                + " cannot make.", refused(job(Precision.BF16, 1)).speaking(
                        Vocabulary.NOTEBOOK).what());
        DmlException cpu = refused(job(Precision.FP16, 0));
        assertEquals("--precision fp16 scales the loss and skips steps that overflow, but this"
                + " job has no GPUs, and CPUs run half-float products about 20 times slower"
                + " than float32.", cpu.speaking(Vocabulary.NOTEBOOK).what());
        assertEquals("Leave --precision out, or set --gpus-per-worker.",
                cpu.speaking(Vocabulary.NOTEBOOK).hint());
        assertEquals("optPrecision(fp16) scales the loss and skips steps that overflow, but"
                + " this job has no GPUs, and CPUs run half-float products about 20 times slower"
                + " than float32.", cpu.speaking(Vocabulary.JAVA).what());
        assertEquals("--precision fp16 scales the loss and skips steps that overflow, but"
                + " --compress would send the loss-scaled gradients, up to 65536 times their"
                + " size, and keep overflows in its error feedback.", refused(job(
                        Precision.FP16, 1).optCompress("int8")).speaking(Vocabulary.NOTEBOOK)
                                .what());
        assertEquals("--precision fp16 scales the loss and skips steps that overflow, but the"
                + " strategy pipeline{replicas=1, stages=2, microbatches=2, GPIPE, PARAMETERS}"
                + " splits the gradients over stages, which would each skip different steps.",
                refused(job(Precision.FP16, 1).optWorkers(2).optStrategy(Strategy.pipeline(2,
                        2, PipelineSchedule.GPIPE))).speaking(Vocabulary.NOTEBOOK).what());
        DmlException own = refused(TrainSpec.builder().setTable(T)
                .setColumns(SyntheticFraud.selection())
                .setBlock("net", new UserBlockTrainingTest.TwoLayers(8)).optGpusPerWorker(1)
                .optPrecision(Precision.FP16));
        assertEquals("--precision fp16 runs dml's linear and convolution layers in half floats;"
                + " a model from --block runs its own forward.", own.speaking(
                        Vocabulary.NOTEBOOK).what());
    }
}

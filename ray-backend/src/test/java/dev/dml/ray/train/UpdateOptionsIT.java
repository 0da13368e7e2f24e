package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.ray.Dml;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Early stopping, a cosine schedule with warm-up, weight decay and clipping on a real local
 * cluster, workers in their own JVMs: a real table stops early at its best epoch, and
 * Fashion-MNIST trains with every update option to well above the majority class.
 */
@Tag("cluster")
class UpdateOptionsIT extends LocalClusterTests {


    @Test
    void breastCancerOnTwoWorkersStopsEarlyAtItsBestEpoch() {
        TrainSpec spec = RealTableJobs.overfitting(2).optCpusPerWorker(0.5).optName("early2")
                .build();
        TrainResult r = Dml.start(spec, driver).await(Duration.ofMinutes(3));
        RealTableJobs.assertStoppedAtTheBest(spec, r);
        assertEquals(2, r.workers().size());
    }

    @Test
    void fashionMnistWithWarmupCosineDecayAndClippingTrainsWell() {
        RealTables.fashionMnistDir();
        FashionMnist train = FashionMnist.load(FashionMnist.DEBIAN_DIR,
                FashionMnist.Split.TRAIN, 6_000);
        FashionMnist test = FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TEST,
                2_000);
        TrainResult r = Dml.start(TrainSpec.builder().setTable(train.toTable())
                .setColumns(FashionMnist.selection()).setModel(ModelSpec.Family.MLP, 128)
                .optLearningRate(2e-3f).optLrSchedule("cosine").optWarmup(20)
                .optWeightDecay(0.01).optClipNorm(1.0).optEpochs(3).optBatchSize(64)
                .optWorkers(2).optCpusPerWorker(0.5).optReportEvery(20).optName("fashion-knobs")
                .build(), driver).await(Duration.ofMinutes(3));
        double acc = Metrics.accuracy(r.predictClasses(test.toTable()), test.labels());
        System.out.printf("fashion-mnist 6k, warm-up + cosine + decay + clip, 2 workers:"
                + " accuracy %.4f, last lr %.2e%n", acc,
                r.steps().get(r.steps().size() - 1).learningRate());
        // ten balanced classes: a constant predictor gets 0.1
        assertTrue(acc >= 0.78, "accuracy " + acc);
        assertTrue(r.steps().get(0).learningRate() < 2e-4, "warm-up starts low");
        assertTrue(r.steps().get(r.steps().size() - 1).learningRate() < 1e-5, "cosine ends low");
    }
}

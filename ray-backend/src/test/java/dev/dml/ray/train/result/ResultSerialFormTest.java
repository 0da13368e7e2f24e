package dev.dml.ray.train.result;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.RegressionMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectStreamClass;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * A {@link TrainResult} is made of parts (the trained model, the history, the recoveries) but
 * is serialized in the form it had before: a model an earlier dml saved opens with every value
 * and predicts as before, and a result round-trips with every value.
 */
class ResultSerialFormTest {

    /** {@code dml-result.ser} of {@link #sample()}, written by the TrainResult of one class. */
    private static final String SAVED_BEFORE_SPLIT = "/saved/dml-result-before-split.ser";

    @Test
    void aModelSavedBeforeTheSplitOpensWithEveryValue() throws IOException {
        byte[] bytes;
        try (InputStream in = getClass().getResourceAsStream(SAVED_BEFORE_SPLIT)) {
            bytes = in.readAllBytes();
        }
        TrainResult old = ResultFiles.fromBytes(bytes);
        TrainResult now = sample();
        assertSameValues(now, old);
        Table rows = SyntheticFraud.generate(40, 5);
        assertArrayEquals(now.predictClasses(rows), old.predictClasses(rows));
        assertArrayEquals(now.probabilities(rows, 1), old.probabilities(rows, 1));
    }

    @Test
    void aResultRoundTripsWithEveryValue() {
        TrainResult r = ResultFiles.fromBytes(ResultFiles.toBytes(sample()));
        assertSameValues(sample(), r);
        assertEquals(sample().toString(), r.toString());
    }

    @Test
    void theSerializedFieldsAreTheOnesEarlierVersionsWrote() {
        ObjectStreamClass form = ObjectStreamClass.lookup(TrainResult.class);
        assertEquals(List.of("epochs Ljava/util/ArrayList;",
                "features Ldev/dml/ray/data/ColumnSelection;", "globalSteps J", "job"
                + " Ljava/lang/String;", "keptEpoch I", "model Ldev/dml/ray/model/ModelSpec;",
                "optimizer Ldev/dml/ray/model/OptimizerSpec;", "parameters [F", "recoveries"
                + " Ljava/util/ArrayList;", "resumedFromStep J", "steps Ljava/util/ArrayList;",
                "stopped Z", "stoppedEarlyAfter I", "wallSeconds D",
                "workers Ljava/util/ArrayList;"),
                Arrays.stream(form.getFields()).map(f -> f.getName() + " " + (f.isPrimitive()
                        ? String.valueOf(f.getTypeCode()) : f.getTypeString())).sorted()
                        .toList());
        assertEquals(1L, form.getSerialVersionUID());
    }

    @Test
    void aForgedResultWithoutItsStepsIsRefusedInOneLine() {
        // the stream names a field "stepz" that TrainResult lacks, and no "steps"
        byte[] forged = replace(ResultFiles.toBytes(sample()), "steps", "stepz");
        DmlException e = assertThrows(DmlException.class, () -> ResultFiles.fromBytes(forged));
        assertEquals("Could not read the model sent to this worker: field steps holds nothing,"
                + " not java.util.ArrayList.", e.what());
    }

    /**
     * A result with a value in every field: two epochs, three steps, two workers, one failure
     * and one pre-emption, stopped early after epoch 2 keeping epoch 1.
     */
    static TrainResult sample() {
        ModelSpec spec = ModelSpec.mlp(31, 2, 4);
        float[] parameters = new float[31 * 4 + 4 + 4 * 2 + 2];
        for (int i = 0; i < parameters.length; i++) {
            parameters[i] = (float) Math.sin(i * 0.37) * 0.3f;
        }
        List<WorkerInfo> workers = List.of(new WorkerInfo(0, 2, 101, "h0"),
                new WorkerInfo(1, 2, 102, "h1"));
        List<StepMetrics> steps = List.of(
                new StepMetrics(1, 1, 0.9f, 32, 1000, 2.5, 0.5, 552, 0, List.of(), 11, 0.01),
                new StepMetrics(1, 2, 0.7f, 32, 1100, 2.4, 0.4, 552, 0, List.of(), 12, 0.01),
                new StepMetrics(2, 3, 0.6f, 32, 1200, 2.3, 0.3, 552, 0, List.of(), 13, 0.005));
        List<EpochMetrics> epochs = List.of(
                new EpochMetrics(1, 2, 2, 0.8f, 1.5, 1050, 0.75f, 0.6, 0.7,
                        RegressionMetrics.NONE),
                new EpochMetrics(2, 3, 1, 0.6f, 0.9, 1200, 0.8f, 0.55, 0.65,
                        RegressionMetrics.NONE));
        List<Recovery> recoveries = List.of(
                new Recovery(2, 1, 1, 3.5, "worker 1 died", "memory", false, workers),
                new Recovery(3, 2, 1, 1.25, "pre-empted", "disk", true, workers));
        return new TrainResult("sample", spec, OptimizerSpec.adam(1e-2f),
                SyntheticFraud.selection(), parameters, steps, epochs, workers, 3, 1, false, 7.5,
                recoveries).withEarlyStop(2, 1);
    }

    /** Every public value of two results is the same. */
    private static void assertSameValues(TrainResult expected, TrainResult actual) {
        assertEquals(expected.job(), actual.job());
        assertEquals(expected.model(), actual.model());
        assertEquals(expected.columns(), actual.columns());
        assertArrayEquals(expected.parameters(), actual.parameters());
        assertEquals(expected.steps(), actual.steps());
        assertEquals(expected.epochs(), actual.epochs());
        assertEquals(expected.workers().toString(), actual.workers().toString());
        assertEquals(expected.recoveries().toString(), actual.recoveries().toString());
        assertEquals(1, actual.failures());
        assertEquals(1, actual.preemptions());
        assertEquals(4.75, actual.recoverySeconds());
        assertEquals(2, actual.stepsRedone());
        assertEquals(3, actual.globalSteps());
        assertEquals(1, actual.resumedFromStep());
        assertEquals(7.5, actual.wallSeconds());
        assertEquals(2, actual.stoppedEarlyAfter());
        assertEquals(1, actual.keptEpoch());
        assertEquals(0.6f, actual.finalLoss());
        assertEquals(expected.metrics().toString(), actual.metrics().toString());
        assertEquals(expected.epochMetrics().toString(), actual.epochMetrics().toString());
    }

    private static byte[] replace(byte[] bytes, String from, String to) {
        byte[] f = from.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] out = bytes.clone();
        for (int i = 0; i + f.length <= out.length; i++) {
            if (Arrays.equals(out, i, i + f.length, f, 0, f.length)) {
                System.arraycopy(to.getBytes(java.nio.charset.StandardCharsets.UTF_8), 0, out, i,
                        f.length);
                return out;
            }
        }
        throw new AssertionError("no " + from + " in the stream");
    }
}

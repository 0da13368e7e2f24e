package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FeatureStats;
import dev.dml.ray.data.HashRing;
import dev.dml.ray.data.SyntheticFraud;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

/** Everything a worker receives crosses Ray serialised: plain Serializable classes, no records. */
class SpecSerializationTest {

    @SuppressWarnings("unchecked")
    private static <T> T roundTrip(T value) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(value);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes
                .toByteArray()))) {
            return (T) in.readObject();
        }
    }

    /** An optimizer with every update option: a schedule, weight decay and a clip norm. */
    private static final OptimizerSpec KNOBS = OptimizerSpec.adam(1e-3f).withSchedule(
            new LearningRateSchedule.Warmup(10, new LearningRateSchedule.Cosine(10, 100)))
            .withWeightDecay(0.01f).withClipNorm(1f);

    @Test
    void specsSurviveSerialisation() throws Exception {
        FeatureStats stats = FeatureStats.of(SyntheticFraud.generate(1000, 1),
                SyntheticFraud.selection());
        ModelSpec mlp = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(31).setOutputs(2)
                .addHidden(16).optStandardize(stats).optSeed(3).build();
        for (Object o : new Object[] {mlp, ModelSpec.cnn(10), OptimizerSpec.adam(1e-3f),
                OptimizerSpec.sgd(0.1f, 0.9f), SyntheticFraud.selection(), stats, KNOBS}) {
            Object back = roundTrip(o);
            assertNotSame(o, back);
            assertEquals(o, back);
            assertTrue(!o.getClass().isRecord(), o.getClass() + " must not be a record");
        }
        HashRing ring = roundTrip(new HashRing(3, 64));
        assertEquals(new HashRing(3, 64).workerFor("x"), ring.workerFor("x"));
        ColumnSelection sel = roundTrip(SyntheticFraud.selection());
        assertEquals(31, sel.featureCount());
    }

    @Test
    void specsSurviveRaysSerializer() {
        FeatureStats stats = FeatureStats.of(SyntheticFraud.generate(100, 1),
                SyntheticFraud.selection());
        ModelSpec mlp = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(31).setOutputs(2)
                .addHidden(16).optStandardize(stats).build();
        for (Object o : new Object[] {mlp, ModelSpec.cnn(10), OptimizerSpec.adam(1e-3f),
                SyntheticFraud.selection(), stats, new HashRing(2), KNOBS}) {
            byte[] bytes = io.ray.runtime.serializer.Serializer.encode(o).getLeft();
            Object back = io.ray.runtime.serializer.Serializer.decode(bytes, o.getClass());
            if (!(o instanceof HashRing)) {
                assertEquals(o, back);
            }
        }
    }

    @Test
    void badSpecsAreRejectedWithHints() {
        DmlException e = assertThrows(DmlException.class,
                () -> ModelSpec.builder(ModelSpec.Family.MLP).setInputs(4).setOutputs(2).build());
        assertEquals("An MLP needs at least one hidden layer.", e.what());
        assertEquals("Call addHidden(units).", e.hint());
        DmlException lr = assertThrows(DmlException.class, () -> OptimizerSpec.adam(0f));
        assertTrue(lr.hint().contains("0.001"), lr.hint());
        DmlException m = assertThrows(DmlException.class, () -> OptimizerSpec.sgd(0.1f, 1f));
        assertEquals("The optimizer's momentum must be in [0, 1), got 1.0.", m.what());
    }
}

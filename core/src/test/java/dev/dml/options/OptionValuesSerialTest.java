package dev.dml.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Option values cross JVMs whole: every option by its catalogue's key, every value intact. */
class OptionValuesSerialTest {

    @Test
    void everyTrainOptionWithAValueOtherThanItsDefaultSurvivesARoundTrip() throws Exception {
        OptionValues v = OptionValues.empty();
        for (Option<?> o : TrainOptions.ALL) {
            v = withOther(v, o);
        }
        v = v.with(TuneOptions.SWEEP, "sweep-1").with(PredictOptions.BATCH_SIZE, 7);
        OptionValues back = roundTrip(v);
        assertEquals(v, back);
        for (Option<?> o : TrainOptions.ALL) {
            assertTrue(back.isSet(o), o.flag());
            assertEquals(v.get(o), back.get(o), o.flag());
        }
        assertEquals(List.copyOf(v.given()), List.copyOf(back.given()));
        // the static declarations are the keys on the reading side too
        assertEquals(v.get(TrainOptions.BATCH_SIZE), back.get(TrainOptions.BATCH_SIZE));
        assertEquals(7, back.get(PredictOptions.BATCH_SIZE));
        assertEquals("sweep-1", back.get(TuneOptions.SWEEP));
    }

    @Test
    void defaultsStayDerivedFromTheValuesGiven() throws Exception {
        OptionValues back = roundTrip(OptionValues.empty()
                .with(TrainOptions.OPTIMIZER, OptimizerKind.SGD));
        assertSame(OptimizerKind.SGD, back.get(TrainOptions.OPTIMIZER));
        assertEquals(0.05, back.get(TrainOptions.LR));
        assertEquals(OptionValues.empty(), roundTrip(OptionValues.empty()));
    }

    @Test
    void valuesTheTextCannotHoldStayExact() throws Exception {
        OptionValues v = OptionValues.empty().with(TrainOptions.DEADLINE, 0.25)
                .with(TrainOptions.FEATURES, List.of("a,b", "c"));
        assertEquals(v, roundTrip(v));
    }

    @Test
    void anUnknownKeyFailsInOneLine() throws Exception {
        byte[] bytes = write(OptionValues.empty().with(TrainOptions.BATCH_SIZE, 32));
        String text = new String(bytes, StandardCharsets.ISO_8859_1)
                .replace("train:batch-size", "train:batch-sizz");
        InvalidObjectException e = assertThrows(InvalidObjectException.class,
                () -> read(text.getBytes(StandardCharsets.ISO_8859_1)));
        assertEquals("Option values name 'train:batch-sizz', an option this dml does not"
                + " declare: run one dml version in the kernel, the driver and the workers.",
                e.getMessage());
    }

    /** The option's example, or another value where the example is its default. */
    private static <T> OptionValues withOther(OptionValues v, Option<T> o) {
        T value = o.parse(o.example());
        T fallback = o.defaultFor(OptionValues.empty());
        if (value.equals(fallback)) {
            Object other = value instanceof Boolean b ? !b
                    : value instanceof Double d ? d * 2 : value instanceof Integer i ? i + 1
                    : value;
            @SuppressWarnings("unchecked")
            T t = (T) other;
            value = t;
        }
        assertNotEquals(fallback, value, o.flag());
        return v.with(o, value);
    }

    private static OptionValues roundTrip(OptionValues v) throws Exception {
        return (OptionValues) read(write(v));
    }

    private static byte[] write(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        return bytes.toByteArray();
    }

    private static Object read(byte[] b) throws Exception {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b))) {
            return in.readObject();
        }
    }
}

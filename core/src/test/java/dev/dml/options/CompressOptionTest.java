package dev.dml.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --compress}: the schemes it takes, and one line for everything else. */
class CompressOptionTest {

    @Test
    void theSchemesParseInAnyCase() {
        assertEquals("none", OptionValues.empty().get(TrainOptions.COMPRESS));
        assertEquals("fp16", TrainOptions.COMPRESS.parse("FP16"));
        assertEquals("bf16", TrainOptions.COMPRESS.parse(" bf16 "));
        assertEquals("int8", TrainOptions.COMPRESS.parse("int8"));
        assertEquals("topk:0.01", TrainOptions.COMPRESS.parse("TopK:0.01"));
        assertEquals("topk:1", TrainOptions.COMPRESS.parse("topk:1"));
    }

    @Test
    void aBadValueGivesOneLineNamingTheSchemes() {
        for (String bad : List.of("topk:2", "topk:0", "topk:-0.1", "topk:", "topk", "int4",
                "fp16:2", "", "topk:NaN", "powersgd:0", "powersgd:x")) {
            DmlException e = assertThrows(DmlException.class,
                    () -> TrainOptions.COMPRESS.parse(bad), bad);
            e.speaking(Vocabulary.NOTEBOOK);
            assertEquals("--compress must be none, fp16, bf16, int8 or topk:RATIO with 0 < RATIO"
                    + " \u2264 1, got '" + bad + "'.", e.what());
            assertEquals(1, e.what().lines().count());
        }
        DmlException java = assertThrows(DmlException.class,
                () -> TrainOptions.COMPRESS.check("topk:2"));
        assertEquals("optCompress must be none, fp16, bf16, int8 or topk:RATIO with 0 < RATIO"
                + " \u2264 1, got topk:2.", java.what());
    }

    @Test
    void powerSgdIsRefusedAsNotAvailableYet() {
        DmlException e = assertThrows(DmlException.class,
                () -> TrainOptions.COMPRESS.parse("powersgd:4"));
        e.speaking(Vocabulary.NOTEBOOK);
        assertEquals("--compress powersgd:4: PowerSGD is not available yet.", e.what());
        assertEquals("Use one of none, fp16, bf16, int8 or topk:RATIO with 0 < RATIO \u2264 1;"
                + " for example --compress topk:0.01.", e.hint());
        assertThrows(DmlException.class, () -> OptionValues.empty()
                .with(TrainOptions.COMPRESS, "powersgd:2"), "the Java side refuses it too");
    }
}

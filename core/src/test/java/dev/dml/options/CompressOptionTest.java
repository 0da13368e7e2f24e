package dev.dml.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --compress}: the schemes it takes, and one line for everything else. */
class CompressOptionTest {

    private static final String SCHEMES = "none, fp16, bf16, int8, topk:RATIO[:WARMUP] with 0"
            + " < RATIO \u2264 1 and WARMUP \u2265 0 epochs, or powersgd:RANK with a whole RANK"
            + " \u2265 1";

    @Test
    void theSchemesParseInAnyCase() {
        assertEquals("none", OptionValues.empty().get(TrainOptions.COMPRESS).toString());
        assertEquals("fp16", TrainOptions.COMPRESS.parse("FP16").toString());
        assertEquals("bf16", TrainOptions.COMPRESS.parse(" bf16 ").toString());
        assertEquals("int8", TrainOptions.COMPRESS.parse("int8").toString());
        assertEquals("topk:0.01", TrainOptions.COMPRESS.parse("TopK:0.01").toString());
        assertEquals("topk:1", TrainOptions.COMPRESS.parse("topk:1").toString());
        assertEquals("topk:0.01:0.5", TrainOptions.COMPRESS.parse("topk:0.01:0.5").toString());
        assertEquals("topk:0.01:0", TrainOptions.COMPRESS.parse("topk:0.01:0").toString());
        assertEquals("powersgd:4", TrainOptions.COMPRESS.parse("PowerSGD:4").toString());
        assertEquals("powersgd:1", OptionValues.empty().with(TrainOptions.COMPRESS,
                TrainOptions.COMPRESS.checkWord("powersgd:1")).get(TrainOptions.COMPRESS)
                .toString(), "the Java side takes it too");
    }

    @Test
    void aBadValueGivesOneLineNamingTheSchemes() {
        for (String bad : List.of("topk:2", "topk:0", "topk:-0.1", "topk:", "topk", "int4",
                "fp16:2", "", "topk:NaN", "topk:0.01:-1", "topk:0.01:", "topk:0.01:x", "topk:2:1",
                "topk:0.01:1:1", "topk:0.01:Infinity", "powersgd:0", "powersgd:x", "powersgd:1.5",
                "powersgd:-2", "powersgd:", "powersgd")) {
            DmlException e = assertThrows(DmlException.class,
                    () -> TrainOptions.COMPRESS.parse(bad), bad);
            e.speaking(Vocabulary.NOTEBOOK);
            assertEquals("--compress must be " + SCHEMES + ", got '" + bad + "'.", e.what());
            assertEquals(1, e.what().lines().count());
        }
        DmlException java = assertThrows(DmlException.class,
                () -> TrainOptions.COMPRESS.checkWord("topk:2"));
        assertEquals("optCompress must be " + SCHEMES + ", got topk:2.", java.what());
        DmlException rank = assertThrows(DmlException.class,
                () -> TrainOptions.COMPRESS.checkWord("powersgd:0"));
        assertEquals("optCompress must be " + SCHEMES + ", got powersgd:0.", rank.what());
    }
}

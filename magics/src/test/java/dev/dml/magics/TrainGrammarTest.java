package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The line and cell forms of %dml train read the same options, with one error line each. */
class TrainGrammarTest {

    private static TrainRequest line(String words) {
        return TrainRequest.parse(List.of(words.split(" ")), null);
    }

    private static String error(Runnable parse) {
        return assertThrows(DmlException.class, parse::run).getMessage();
    }

    @Test
    void lineFormReadsEveryKind() {
        TrainRequest r = line("fraud --label is_fraud --hidden 64,32 --workers 2 --lr 0.01"
                + " --optimizer SGD --validation 0.2 --seed 0 --into model --debug --no-plots"
                + " --strategy pipeline --stages 2,1 --microbatches 4 --schedule 1f1b");
        assertEquals("fraud", r.source());
        assertEquals(List.of(64, 32), r.get(TrainOptions.HIDDEN));
        assertEquals(WorkerRange.of(2), r.get(TrainOptions.WORKERS));
        assertEquals(0.01, r.get(TrainOptions.LR));
        assertEquals("sgd", r.get(TrainOptions.OPTIMIZER).word());
        assertEquals("0.2", r.get(TrainOptions.VALIDATION));
        assertEquals(0L, r.get(TrainOptions.SEED));
        assertEquals("model", r.into());
        assertTrue(r.debug());
        assertFalse(r.plots());
        assertEquals(List.of(2, 1), r.get(TrainOptions.STAGES));
        assertEquals("1f1b", r.get(TrainOptions.SCHEDULE).word());
        assertFalse(r.options().isSet(TrainOptions.EPOCHS));
        assertEquals(1, r.get(TrainOptions.EPOCHS), "the declared default");
        assertNull(r.cluster());
    }

    @Test
    void shuffleIsOnUnlessNoShuffleAndStratifyIsASwitch() {
        assertTrue(line("fraud --label y").get(TrainOptions.SHUFFLE), "on by default");
        assertFalse(line("fraud --label y").get(TrainOptions.STRATIFY));
        TrainRequest off = line("fraud --label y --no-shuffle --stratify --epochs 2");
        assertFalse(off.get(TrainOptions.SHUFFLE));
        assertTrue(off.get(TrainOptions.STRATIFY));
        assertEquals(2, off.get(TrainOptions.EPOCHS), "the next word is not swallowed");
        assertFalse(line("fraud --label y --shuffle=false").get(TrainOptions.SHUFFLE));
        assertTrue(error(() -> line("fraud --label y --no-epochs"))
                .contains("unknown option --no-epochs"), "--no- only turns a switch off");
    }

    @Test
    void cellFormReadsKeyValueLinesLikeFlags() {
        TrainRequest cell = TrainRequest.parse(List.of(), """
                # the fraud model
                table: fraud
                label: is_fraud
                hidden: 64, 32
                batch_size: 128
                background: yes
                into: model
                """);
        TrainRequest flags = line("fraud --label is_fraud --hidden 64,32 --batch-size 128"
                + " --background --into model");
        assertEquals(flags, cell);
    }

    @Test
    void compressTakesASchemeAndRefusesOthersInOneLine() {
        assertEquals("topk:0.01", line("fraud --label y --compress topk:0.01")
                .get(TrainOptions.COMPRESS).toString());
        assertEquals("int8", TrainRequest.parse(List.of(), "table: fraud\nlabel: y\n"
                + "compress: int8").get(TrainOptions.COMPRESS).toString());
        assertEquals("topk:0.01:0.5", line("fraud --label y --compress topk:0.01:0.5")
                .get(TrainOptions.COMPRESS).toString());
        assertEquals("powersgd:4", line("fraud --label y --compress powersgd:4")
                .get(TrainOptions.COMPRESS).toString());
        assertTrue(error(() -> line("fraud --label y --compress topk:2")).startsWith(
                "%dml train: --compress must be none, fp16, bf16, int8, topk:RATIO[:WARMUP]"
                + " with 0 < RATIO \u2264 1 and WARMUP \u2265 0 epochs, or powersgd:RANK with"
                + " a whole RANK \u2265 1, got"
                + " 'topk:2'."));
        assertTrue(error(() -> line("fraud --label y --compress powersgd:0")).startsWith(
                "%dml train: --compress must be none, fp16, bf16, int8, topk:RATIO[:WARMUP]"
                + " with 0 < RATIO \u2264 1 and WARMUP \u2265 0 epochs, or powersgd:RANK with"
                + " a whole RANK \u2265 1, got"
                + " 'powersgd:0'."));
    }

    @Test
    void badInputNamesTheProblemAndTheFix() {
        assertTrue(error(() -> line("fraud --label y --wrokers 2"))
                .contains("unknown option --wrokers.\nDid you mean --workers?".replace("\n",
                        System.lineSeparator())));
        assertEquals("%dml train: --epochs must be a whole number of at least 1, got '0'.\n"
                + "For example --epochs 3: passes over the training rows.",
                error(() -> line("fraud --label y --epochs 0")));
        assertEquals(new WorkerRange(2, 4), line("fraud --label y --workers 2:4")
                .get(TrainOptions.WORKERS));
        assertTrue(error(() -> line("fraud --label y --workers 4:2")).startsWith(
                "%dml train: --workers must be a whole number of at least 1, or a range of them"
                        + " such as 2:4, got '4:2'."),
                error(() -> line("fraud --label y --workers 4:2")));
        assertTrue(error(() -> line("fraud --label y --model rnn"))
                .contains("--model must be one of mlp, logistic, cnn, mf"));
        assertTrue(error(() -> line("fraud --label y --hidden 64,x"))
                .contains("--hidden must be sizes of at least 1"));
        assertTrue(error(() -> line("fraud --label y --into 2fast"))
                .contains("a Java variable name"));
        assertTrue(error(() -> line("fraud")).contains("needs --label"));
        assertTrue(error(() -> line("--label y")).contains("needs its data"));
        assertTrue(error(() -> TrainRequest.parse(List.of(), "table fraud"))
                .contains("line 1 'table fraud' is not 'key: value'"));
        assertTrue(error(() -> line("fraud --label y --epochs 2 --epochs 3"))
                .startsWith("%dml train:"));
    }

    @Test
    void helpListsEveryOptionWithItsDeclaredDefault() {
        String help = String.join("\n", new TrainCommand().usage());
        assertTrue(help.contains("--optimizer adam|sgd"), help);
        assertTrue(help.contains("(default: adam)"), "the optimizer the engine really uses");
        assertTrue(help.contains("(default: 0.001 for adam, 0.05 for sgd)"), help);
        for (var o : TrainOptions.ALL) {
            assertTrue(help.contains(o.usage()), o.name());
        }
    }
}

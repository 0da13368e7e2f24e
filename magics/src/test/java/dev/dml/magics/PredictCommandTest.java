package dev.dml.magics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.events.PredictProgress;
import dev.dml.options.PredictOptions;
import dev.dml.options.TrainOptions;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.Test;

/** {@code %dml predict}'s words: its model and data, its options, and bad input as one line. */
class PredictCommandTest {

    private static PredictRequest predict(String words) {
        return PredictRequest.parse(List.of(words.split(" ")), null);
    }

    private static String failure(Runnable r) {
        DmlException e = assertThrows(DmlException.class, r::run);
        return e.speaking(Vocabulary.NOTEBOOK).getMessage();
    }

    @Test
    void theLineNamesTheModelThenTheData() {
        PredictRequest r = predict("model test.csv --workers 2 --batch-size 512 --into out"
                + " --cpus-per-worker 0.5 --cluster 10.0.0.5:6379");
        assertEquals("model", r.model());
        assertEquals("test.csv", r.source());
        assertEquals(2, r.get(PredictOptions.WORKERS));
        assertEquals(512, r.get(PredictOptions.BATCH_SIZE));
        assertEquals(0.5, r.get(PredictOptions.CPUS_PER_WORKER));
        assertEquals("out", r.into());
        assertEquals("10.0.0.5:6379", r.cluster());
        PredictRequest plain = predict("m t");
        assertEquals(1, plain.get(PredictOptions.WORKERS));
        assertEquals(4096, plain.get(PredictOptions.BATCH_SIZE));
        assertEquals("scored", plain.into(), "the scored table has a name by default");
        assertTrue(predict("m t --debug").debug());
    }

    @Test
    void theCellFormNamesThemByKey() {
        PredictRequest r = PredictRequest.parse(List.of(), "data: test\nmodel: m\nworkers: 3");
        assertEquals("m", r.model());
        assertEquals("test", r.source());
        assertEquals(3, r.get(PredictOptions.WORKERS));
        PredictRequest mixed = PredictRequest.parse(List.of("test"), "model: m");
        assertEquals("m", mixed.model());
        assertEquals("test", mixed.source());
        assertTrue(failure(() -> PredictRequest.parse(List.of("a", "b"), "model: m"))
                .startsWith("%dml predict: 'b' is one word too many"));
    }

    @Test
    void badInputIsOneLineInTheCellsWords() {
        String zero = failure(() -> predict("m t --workers 0"));
        assertTrue(zero.startsWith("%dml predict: --workers must be"), zero);
        assertTrue(zero.contains("at least 1"), zero);
        assertTrue(failure(() -> predict("m")).startsWith("%dml predict needs a model and the"
                + " data to score; it got only the model 'm'."));
        assertTrue(failure(() -> PredictRequest.parse(List.of(), null))
                .startsWith("%dml predict needs a model and the data to score."));
        String typo = failure(() -> predict("m t --worker 2"));
        assertTrue(typo.startsWith("%dml predict: unknown option --worker.")
                && typo.contains("Did you mean --workers?"), typo);
        // predict takes none of the training job's options
        assertTrue(failure(() -> predict("m t --epochs 2"))
                .startsWith("%dml predict: unknown option --epochs."));
        assertTrue(failure(() -> predict("m t --into 1x")).contains("--into"));
    }

    @Test
    void helpShowsTheUsageAndEveryOption() {
        RecordingKernel kernel = new RecordingKernel();
        DmlMagics.standard().eval(kernel, List.of("help", "predict"));
        String text = (String) kernel.displayed.get(0).getData(MIMEType.TEXT_PLAIN);
        assertTrue(text.startsWith("%dml predict: score a table"), text);
        for (var o : PredictOptions.ACCEPTED) {
            assertTrue(text.contains(o.usage()), o.flag());
        }
        assertTrue(text.contains("(default: scored)"), text);
        assertTrue(PredictOptions.ACCEPTED.contains(TrainOptions.DEBUG));
    }

    @Test
    void progressAndSummaryLines() {
        assertEquals("Scoring on 2 workers: 1,500 of 3,000 rows (50%), 3,000 rows/s",
                PredictCommand.line(new PredictProgress(1500, 3000, 2, 0.5)));
        assertEquals("Scored 3,000 rows on 1 worker in 4.2 s (12,000 rows/s while scoring);"
                + " the table is bound to 'scored'.", PredictCommand.summary(
                        new DmlBackend.Prediction(null, 3000, 1, 4.2, 12000, "", ""),
                        "scored"));
    }
}

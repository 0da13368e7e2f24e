package dev.dml.kernel.backend;

import dev.dml.options.PipelineSchedule;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.magics.TrainRequest;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.TrainSpec;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DateColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** What a %dml train request becomes in the engine, checked before anything starts. */
class TrainRequestsTest {

    private final Table fraud = SyntheticFraud.generate(2_000, 7);
    private final NotebookData data = new NotebookData(
            name -> Optional.ofNullable(Map.<String, Object>of("fraud", fraud,
                    "holdout", SyntheticFraud.generate(300, 8), "text", "x", "words",
                    Table.create("words", StringColumn.create("city", "Oslo", "Rome"),
                            IntColumn.create("y", 0, 1)), "dates", Table.create("dates",
                            DateColumn.create("day", LocalDate.of(2026, 1, 1),
                                    LocalDate.of(2026, 1, 2)), IntColumn.create("y", 0, 1)))
                    .get(name)),
            () -> List.of("dates", "fraud", "holdout", "text", "words"), Map::of);

    private TrainSpec spec(String words) {
        return TrainRequests.spec(TrainRequest.parse(List.of(words.split(" ")), null), data);
    }

    private String failure(String words) {
        // as the cell shows it: %dml train renders the engine's message in notebook words
        return assertThrows(DmlException.class, () -> spec(words))
                .speaking(Vocabulary.NOTEBOOK).getMessage();
    }

    @Test
    void defaultsAndOptionsReachTheSpec() {
        TrainSpec s = spec("fraud --label is_fraud --workers 2 --epochs 3 --batch-size 32"
                + " --validation holdout --seed 5");
        assertEquals(2, s.workers());
        assertEquals(3, s.epochs());
        assertEquals(32, s.batchSize());
        assertEquals(300, s.validationTable().orElseThrow().rowCount());
        assertEquals(31, s.columns().featureCount()); // every numeric column but the label
        assertEquals("[64]", java.util.Arrays.toString(s.model().hidden()));
        assertEquals(Strategy.data(), s.strategy());
        assertEquals(400, spec("fraud --label is_fraud --validation 0.2").validationTable()
                .orElseThrow().rowCount());
    }

    @Test
    void mfReadsWholeNumberStarsAsRatings() {
        Table stars = Table.create("stars", StringColumn.create("user", "a", "b", "a", "c"),
                IntColumn.create("item", 1, 1, 2, 2), IntColumn.create("stars", 1, 5, 3, 4));
        TrainSpec s = TrainRequests.spec(TrainRequest.parse(List.of("stars", "--label", "stars",
                "--model", "mf", "--batch-size", "2"), null), new NotebookData(
                        name -> Optional.ofNullable(Map.<String, Object>of("stars", stars)
                                .get(name)), () -> List.of("stars"), Map::of));
        assertEquals(dev.dml.ray.data.LabelKind.REGRESSION, s.columns().labelKind());
        assertEquals(1, s.model().outputs());
        assertEquals(3.25f, s.model().offset(), 1e-6, "the mean rating");
    }

    @Test
    void strategiesMapToTheEngines() {
        Strategy.Staged pipeline = (Strategy.Staged) spec("fraud --label is_fraud --hidden 32,16"
                + " --strategy pipeline --stages 3 --microbatches 4 --schedule 1f1b"
                + " --batch-size 64").strategy();
        assertEquals(3, pipeline.stages());
        assertEquals(4, pipeline.microbatches());
        assertEquals(PipelineSchedule.ONE_F_ONE_B, pipeline.schedule());
        Strategy.Staged model = (Strategy.Staged) spec("fraud --label is_fraud --hidden 32,16"
                + " --strategy model --stages 2,1").strategy();
        assertEquals(2, model.stages());
        assertTrue(failure("fraud --label is_fraud --stages 2")
                .contains("apply to a model, pipeline or hybrid strategy"));
        assertTrue(failure("fraud --label is_fraud --strategy model --microbatches 2")
                .contains("not to the model strategy"));
    }

    @Test
    void aFilePathIsReadAsTheTable(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path csv = dir.resolve("fraud.csv");
        fraud.write().csv(csv.toFile());
        TrainSpec s = spec(csv + " --label is_fraud");
        assertEquals(fraud.rowCount(), s.trainTable().rowCount());
        assertEquals("fraud", s.name());
        assertTrue(failure(dir.resolve("missing.csv") + " --label is_fraud")
                .contains("no variable or file"));
    }

    @Test
    void badCombinationsSayHowToFix() {
        assertTrue(failure("text --label y").contains("is a String, not a Tablesaw Table"));
        assertTrue(failure("fraud --label is_fraud --model logistic --hidden 8")
                .contains("Drop --hidden, or train the mlp family."));
        assertTrue(failure("fraud --label is_fraud --resume")
                .contains("--resume needs --checkpoint-dir."));
        assertTrue(failure("fraud --label is_fraud --validation 1.5").contains("fraction"));
        assertTrue(failure("fraud --label is_fraud --validation holdot")
                .contains("Did you mean 'holdout'?"));
        assertEquals("The table 'dates' has no numeric, boolean or text column besides the"
                + " label y; its columns are [day, y].\nAdd numeric or text columns; --features"
                + " picks the columns to train on.", failure("dates --label y"));
    }

    @Test
    void textColumnsAreFeaturesOneHotEncoded() {
        TrainSpec s = spec("words --label y --batch-size 1");
        assertEquals(List.of("city"), s.columns().features());
        assertEquals(List.of("city=Oslo", "city=Rome", "city=(other)"), s.columns().inputs());
        assertEquals(3, s.model().inputs());
    }
}

package dev.dml.ray.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.runs.Runs;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.tune.Trial;
import dev.dml.tune.TrialStatus;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * A sweep run from Java the way a user would: six trials on one embedded cluster, two at a
 * time; ASHA stops the trials whose learning rate barely moves the loss, the ranking puts the
 * good rate first, each trial is a recorded run of the sweep, and the best model scores rows.
 */
@Tag("cluster")
class TuneIT {

    @Test
    void ashaStopsTheWeakTrialsAndTheBestModelScores() {
        TrainSpec base = TrainSpec.builder().setTable(SyntheticFraud.generate(20_000, 3))
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 8)
                .optEpochs(4).optBatchSize(256).optValidationFraction(0.2)
                .optCpusPerWorker(0).optName("tuneit" + ProcessHandle.current().pid()).build();
        // the grid varies lr slowest: t01-t03 learn, t04-t06 reach rung 1 behind them (ASHA may
        // stop one of t01-t03 too, at rung 2, behind the other two)
        TuneResult r = Dml.tune(base).optSpace(TrainOptions.LR, "1e-2|1e-6")
                .optSpace(TrainOptions.HIDDEN, "8|16|32").optAsha(1, 2).optMetric("val_loss")
                .optConcurrent(2).build().run();

        List<Trial> ranked = r.ranked();
        String shown = r.table().print();
        assertEquals(6, ranked.size());
        for (int i = 0; i < 3; i++) { // every trial that learns ranks above every one that does not
            assertEquals(0.01, ranked.get(i).options().get(TrainOptions.LR), shown);
        }
        assertEquals(TrialStatus.DONE, ranked.get(0).status(), shown);
        for (Trial t : ranked) {
            assertTrue(t.workerSeconds() > 0, t.id());
            if (t.options().get(TrainOptions.LR) < 0.01) { // behind the good ones at rung 1
                assertEquals(TrialStatus.STOPPED_EARLY, t.status(), shown);
            }
            if (t.status() == TrialStatus.STOPPED_EARLY) {
                assertTrue(t.epochs() < 4, shown);
            } else {
                assertEquals(TrialStatus.DONE, t.status(), shown);
                assertEquals(4, t.epochs(), shown);
            }
        }
        long early = ranked.stream().filter(t -> t.status() == TrialStatus.STOPPED_EARLY)
                .count();
        for (int i = 1; i < ranked.size(); i++) {
            assertTrue(ranked.get(i - 1).last() <= ranked.get(i).last(), "ranked by val_loss");
        }

        Table table = r.table();
        assertEquals(List.of("rank", "trial", "lr", "hidden", "val_loss", "epochs", "status",
                "worker_seconds", "usd", "failure"), table.columnNames());
        assertEquals(ranked.get(0).id(), table.stringColumn("trial").get(0));
        assertEquals(early, table.stringColumn("status").isEqualTo("stopped early").size());

        TrainResult best = r.best().orElseThrow();
        assertEquals(ranked.get(0).result(), best);
        // about 1% of rows are fraud: a constant "not fraud" is 99% right, so the check is the
        // ranking of fraud above the rest (a constant scores an AUC of 0.5)
        Table rows = SyntheticFraud.generate(5_000, 9);
        float[] p = best.probabilities(rows, 1);
        assertEquals(5_000, p.length);
        int[] labels = rows.intColumn(SyntheticFraud.LABEL).asIntArray();
        for (float x : p) {
            assertTrue(x >= 0 && x <= 1);
        }
        double auc = Metrics.rocAuc(p, labels);
        assertTrue(auc >= 0.8, "the best model's ROC AUC on new rows: " + auc);

        try (Runs runs = Runs.open()) {
            Table all = runs.table();
            Table mine = all.where(all.stringColumn("settings").containsString(
                    "\"sweep\":\"" + r.id() + "\""));
            assertEquals(6, mine.rowCount(), "every trial is a recorded run of the sweep");
        }
    }
}

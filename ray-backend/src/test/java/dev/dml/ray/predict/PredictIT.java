package dev.dml.ray.predict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.PredictProgress;
import dev.dml.ray.Dml;
import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.ProcessChecks;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * Distributed prediction on a real local cluster, as the kernel runs it (this JVM has no Ray;
 * the workers are JVMs of their own): 2 workers give the local predictions in the input's
 * order, report progress, and leave no actor; a worker killed mid-way is one line, and the
 * driver goes on.
 */
@Tag("cluster")
class PredictIT {

    private static RayCluster cluster;
    private static DriverProcess driver;
    private static Table penguins;
    private static TrainResult model;

    @BeforeAll
    static void open() {
        cluster = RayCluster.open(ClusterSpec.builder().optNumCpus(2).build());
        driver = cluster.openDriver();
        Table t = RealTables.penguins();
        penguins = t.dropWhere(t.numberColumn("bill_length_mm").isMissing());
        model = Dml.start(TrainSpec.builder().setTable(penguins)
                .setColumns(ColumnSelection.allExcept(penguins, "species", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optEpochs(20).optBatchSize(16)
                .optWorkers(2).optName("penguins").build(), driver)
                .await(Duration.ofMinutes(3));
    }

    @AfterAll
    static void close() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void twoWorkersGiveTheLocalPredictionsInRowOrderAndEnd() throws InterruptedException {
        // a table sorted by species: any mix-up of the shards' order changes the columns
        Table sorted = penguins.sortAscendingOn("species", "body_mass_g");
        List<PredictProgress> progress = new CopyOnWriteArrayList<>();
        BatchPredictor p = Dml.predict(model).optWorkers(2).optBatchSize(32)
                .optProgress(progress::add).optDriver(driver).build();
        Table scored = p.predict(sorted);
        Table local = model.predict(sorted);
        assertEquals(sorted.columnCount() + local.columnCount(), scored.columnCount());
        assertEquals(sorted.stringColumn("species").asList(),
                scored.stringColumn("species").asList());
        assertEquals(sorted.column("body_mass_g").asList(),
                scored.column("body_mass_g").asList());
        assertEquals(local.stringColumn("predicted").asList(),
                scored.stringColumn("predicted").asList());
        for (int j = 0; j < model.model().outputs(); j++) {
            float[] want = local.floatColumn("p" + j).asFloatArray();
            float[] got = scored.floatColumn("p" + j).asFloatArray();
            for (int r = 0; r < want.length; r++) {
                assertEquals(want[r], got[r], 1e-5, "p" + j + " row " + r);
            }
        }
        int right = 0;
        for (int r = 0; r < sorted.rowCount(); r++) {
            right += scored.stringColumn("predicted").get(r)
                    .equals(sorted.stringColumn("species").get(r)) ? 1 : 0;
        }
        double accuracy = (double) right / sorted.rowCount();
        System.out.printf("penguins on 2 workers: accuracy %.3f, %s%n", accuracy,
                progress.get(progress.size() - 1));
        assertTrue(accuracy > 0.6, "Adelie alone is 0.44; got " + accuracy);
        assertEquals(2, p.workers().size());
        assertTrue(progress.get(progress.size() - 1).done());
        ProcessChecks.awaitDead(p.workers().stream().map(w -> w.pid()).toList(),
                Duration.ofSeconds(30), "worker");
        assertTrue(driver.isAlive());
    }

    @Test
    void aWorkerKilledMidWayIsOneLineAndTheDriverGoesOn() throws InterruptedException {
        List<Table> parts = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
            parts.add(penguins); // 205k rows: a few seconds of scoring in batches of 64
        }
        Table big = penguins.emptyCopy();
        parts.forEach(big::append);
        AtomicBoolean killed = new AtomicBoolean();
        BatchPredictor[] self = new BatchPredictor[1];
        self[0] = Dml.predict(model).optWorkers(2).optBatchSize(64).optDriver(driver)
                .optProgress(pr -> {
                    if (!killed.getAndSet(true)) { // the first report: the workers score
                        ProcessHandle.of(self[0].workers().get(1).pid())
                                .ifPresent(ProcessHandle::destroyForcibly);
                    }
                }).build();
        DmlException e = assertThrows(DmlException.class, () -> self[0].predict(big));
        System.out.println("killed worker: " + e.getMessage());
        long pid = self[0].workers().get(1).pid();
        assertTrue(e.what().startsWith("Rank 1 (pid " + pid), e.what());
        assertFalse(e.what().contains("\n"), e.what());
        ProcessChecks.awaitDead(self[0].workers().stream().map(w -> w.pid()).toList(),
                Duration.ofSeconds(30), "worker");
        assertTrue(driver.isAlive());
        Table again = Dml.predict(model).optWorkers(2).optDriver(driver).build()
                .predict(penguins);
        assertEquals(penguins.rowCount(), again.rowCount());
    }
}

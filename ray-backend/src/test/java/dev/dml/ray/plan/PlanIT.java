package dev.dml.ray.plan;

import dev.dml.options.StrategyKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.cost.JobPlan;
import dev.dml.cost.Market;
import dev.dml.cost.PlanRow;
import dev.dml.cost.Pricing;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.ClusterPricing;
import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import dev.dml.scaling.ScaleRow;
import dev.dml.scaling.ScaleTable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * {@code %dml plan}'s engine on the embedded cluster priced as an m5.xlarge: each size is
 * probed for real, rows come in both markets with the catalogue's prices, a GPU type the
 * cluster lacks shows its price and no time, the best row runs, and a deadline no size meets
 * leaves no best row. How close the predictions come is C1's business (bench/), not a test's.
 */
class PlanIT {

    private static final Table FRAUD = SyntheticFraud.generate(8_000, 5);
    private static RayCluster cluster;
    private static DriverProcess driver;
    private static final Pricing M5 = Pricing.NONE.withInstance("m5.xlarge", Market.ON_DEMAND,
            "aws", "us-east-1");

    @BeforeAll
    static void open() {
        cluster = RayCluster.open(ClusterSpec.builder().optNumCpus(2).build());
        driver = cluster.openDriver();
        driver.call(new ClusterPricing(M5));
    }

    @AfterAll
    static void close() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static TrainSpecBuilder job() {
        return TrainSpec.builder().setTable(FRAUD).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.Family.MLP, 32).optBatchSize(64).optEpochs(2)
                .optName("plan-it");
    }

    @Test
    void probesEachSizePricesBothMarketsAndTheBestRowRuns() {
        List<String> progress = new CopyOnWriteArrayList<>();
        JobPlan plan = JobPlanner.builder().setSpec(job().build()).setDriver(driver)
                .optPricing(M5).addSizes(1, 2).addInstance("g5.xlarge").optProbeSteps(30)
                .optProgress(progress::add).build().plan();
        List<PlanRow> measured = plan.rows().stream().filter(PlanRow::measured).toList();
        assertEquals(4, measured.size(), "" + plan.rows()); // 1 and 2 workers, two markets
        double m5 = M5.check().usdPerHour();
        for (PlanRow r : measured) {
            assertTrue(r.seconds() > 0 && Double.isFinite(r.seconds()), "" + r);
            assertTrue(r.basis().startsWith("probe: 30 steps"), r.basis());
            if (r.market() == Market.ON_DEMAND) {
                assertEquals(m5, r.usdPerHour(), 1e-9, "one node, paid whole: " + r);
                assertTrue(r.runnable(), "" + r);
            } else {
                assertTrue(r.usdPerHour() < m5, "spot is cheaper: " + r);
                assertFalse(r.runnable(), "" + r);
            }
        }
        List<PlanRow> g5 = plan.rows().stream().filter(r -> r.nodes().contains("g5.xlarge"))
                .toList();
        assertFalse(g5.isEmpty(), "" + plan.rows());
        g5.forEach(r -> {
            assertFalse(r.measured(), "" + r);
            assertTrue(r.basis().startsWith("time not measured"), r.basis());
            assertTrue(r.usdPerHour() > m5, "" + r);
        });
        assertEquals(4, progress.size(), "a line as each probe starts and ends: " + progress);
        assertTrue(plan.probeSeconds() > 0 && plan.probeUsd() > 0, "" + plan);

        PlanRow best = plan.choose("BEST");
        assertTrue(best.runnable(), plan.why());
        for (PlanRow r : measured) { // the cheapest of the rows that can run here
            assertTrue(!r.runnable() || r.usd() >= best.usd() * 0.995, plan.why() + " vs " + r);
        }
        TrainResult result = TrainJob.start(job().optWorkers(best.workers()).build(), driver)
                .await();
        assertEquals(best.workers(), result.workers().size());
        assertFalse(result.stopped());
    }

    @Test
    void aDeadlineNoSizeMeetsLeavesNoBestRow() {
        TrainSpec tight = job().opt(TrainOptions.DEADLINE, 1.0).build();
        JobPlan plan = JobPlanner.builder().setSpec(tight).setDriver(driver).optPricing(M5)
                .addSizes(1).optProbeSteps(30).build().plan();
        assertEquals(0, plan.best());
        assertTrue(plan.why().startsWith("no configuration finishes within 1 s"), plan.why());
    }

    @Test
    void aStagedJobIsRefusedInOneLine() {
        TrainSpec staged = job().setModel(ModelSpec.Family.MLP, 32, 16)
                .opt(TrainOptions.STRATEGY, StrategyKind.PIPELINE).build();
        DmlException e = assertThrows(DmlException.class, () -> JobPlanner.builder()
                .setSpec(staged).setDriver(driver).build().plan());
        assertTrue(e.what().startsWith("A plan compares data-parallel sizes"), e.what());
    }

    @Test
    void aScalingTableRunsEachSizeAndTimesTheTarget() {
        TrainSpec spec = job().optValidationFraction(0.2).optEpochs(3)
                .opt(TrainOptions.STEPS_PER_EPOCH, 20).build();
        ScaleTable t = ScaleStudy.builder().setSpec(spec).setDriver(driver).addSizes(1, 2)
                .optTarget(0.5).build().run();
        assertEquals(List.of(1, 2), t.rows().stream().map(ScaleRow::workers).toList());
        ScaleRow one = t.rows().get(0);
        ScaleRow two = t.rows().get(1);
        assertEquals(1.0, one.speedup(), 1e-12);
        assertEquals(1.0, one.efficiency(), 1e-12);
        assertEquals(two.examplesPerSecond() / one.examplesPerSecond(), two.speedup(), 1e-9);
        assertEquals(two.speedup() / 2, two.efficiency(), 1e-9);
        for (ScaleRow r : t.rows()) {
            assertTrue(r.examplesPerSecond() > 0 && r.usd() > 0, "" + r);
            assertTrue(r.secondsToTarget() > 0 && r.secondsToTarget() <= r.wallSeconds(), "" + r);
            assertTrue(r.finalMetric() > 0.5 && r.finalMetric() <= 1, "" + r);
        }
        assertTrue(t.job().contains("3 epochs of 20 steps per size"), t.job());
        DmlException regression = assertThrows(DmlException.class, () -> ScaleStudy.builder()
                .setSpec(job().build()).setDriver(driver).optTarget(0.9).build().run());
        assertTrue(regression.what().contains("holds out no validation rows"),
                regression.what());
    }
}

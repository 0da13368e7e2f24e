package dev.dml.magics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.cost.JobPlan;
import dev.dml.cost.Market;
import dev.dml.cost.PlanRow;
import dev.dml.options.PlanOptions;
import dev.dml.options.TrainOptions;
import dev.dml.options.WorkerRange;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code %dml plan}'s words, and {@code %dml train --plan}: the planned job at the chosen
 * row's size, with only options that leave the prediction alone.
 */
class PlanCommandsTest {

    private final DmlSession session = new DmlSession(new RecordingKernel());

    private static String failure(Runnable r) {
        DmlException e = assertThrows(DmlException.class, r::run);
        return e.speaking(Vocabulary.NOTEBOOK).getMessage();
    }

    private static TrainRequest plan(String words) {
        return TrainGrammar.PLAN.read(List.of(words.split(" ")), null);
    }

    private static TrainRequest train(String words) {
        return TrainRequest.parse(List.of(words.split(" ")), null);
    }

    private void planned() {
        TrainRequest job = plan("fraud --label is_fraud --epochs 5 --workers 1:2 --probe-steps 20"
                + " --instances g5.xlarge --into thePlan");
        List<PlanRow> rows = List.of(
                new PlanRow(0, 1, "1 x m5.xlarge on-demand", Market.ON_DEMAND, 0.192, 100,
                        "probe", false, ""),
                new PlanRow(0, 2, "1 x m5.xlarge on-demand", Market.ON_DEMAND, 0.192, 60,
                        "probe", false, ""),
                new PlanRow(0, 1, "1 x aws g5.xlarge on-demand", Market.ON_DEMAND, 1.006,
                        Double.NaN, "time not measured", false, "time not measured"));
        session.keepPlan(new DmlSession.PlannedJob(job,
                JobPlan.rank("fraud, 5 epochs", rows, Double.NaN, Double.NaN, 5, 0)));
    }

    @Test
    void planReadsTheJobsOptionsAndItsOwn() {
        TrainRequest r = plan("fraud --label is_fraud --epochs 5 --workers 1:4 --probe-steps 20"
                + " --instances m5.2xlarge,g5.xlarge --deadline 10m");
        assertEquals(5, r.get(TrainOptions.EPOCHS));
        assertEquals(new WorkerRange(1, 4), r.get(TrainOptions.WORKERS));
        assertEquals(20, r.get(PlanOptions.PROBE_STEPS));
        assertEquals(List.of("m5.2xlarge", "g5.xlarge"), r.get(PlanOptions.INSTANCES));
        assertEquals(600.0, r.get(TrainOptions.DEADLINE));
        String typo = failure(() -> plan("fraud --label y --probe-stps 20"));
        assertTrue(typo.startsWith("%dml plan: unknown option --probe-stps.")
                && typo.contains("Did you mean --probe-steps?"), typo);
        assertTrue(failure(() -> plan("fraud --epochs 2"))
                .startsWith("%dml plan needs --label: the column to predict."));
        // train does not take the plan's own options
        assertTrue(failure(() -> train("fraud --label y --probe-steps 20"))
                .startsWith("%dml train: unknown option --probe-steps."));
    }

    @Test
    void trainPlanRunsThePlannedJobAtTheChosenSize() {
        planned();
        PlannedTrain.Chosen best = PlannedTrain.resolve(session, train("--plan BEST --into m"));
        assertEquals("fraud", best.request().source());
        assertEquals(new WorkerRange(2, 2), best.request().get(TrainOptions.WORKERS));
        assertEquals(5, best.request().get(TrainOptions.EPOCHS));
        assertEquals("m", best.request().into());
        assertNull(best.request().get(PlanOptions.INSTANCES)); // the plan's own are dropped
        assertTrue(best.line().startsWith("Running row 1 of the plan: 2 workers on 1 x"
                + " m5.xlarge on-demand, predicted 60 s and $0.0032"), best.line());
        PlannedTrain.Chosen row2 = PlannedTrain.resolve(session,
                train("fraud --plan 2 --label is_fraud --epochs 5 --budget 1"));
        assertEquals(new WorkerRange(1, 1), row2.request().get(TrainOptions.WORKERS));
        assertEquals(1.0, row2.request().get(TrainOptions.BUDGET));
        assertNull(row2.request().into(), "the plan's --into names the plan, not the model");
    }

    @Test
    void trainPlanRefusesWhatWouldChangeThePrediction() {
        assertTrue(failure(() -> PlannedTrain.resolve(session, train("--plan BEST")))
                .startsWith("--plan runs a row of the session's last %dml plan, and this"
                        + " session has made none."));
        planned();
        assertTrue(failure(() -> PlannedTrain.resolve(session, train("--plan 1 --epochs 9")))
                .startsWith("--plan runs the job as it was planned, and --epochs would change"
                        + " its predicted time."));
        assertTrue(failure(() -> PlannedTrain.resolve(session, train("other --plan 1")))
                .startsWith("--plan runs the planned job on 'fraud', not 'other'."));
        assertTrue(failure(() -> PlannedTrain.resolve(session, train("--plan 3")))
                .contains("cannot run here: time not measured"));
        assertTrue(failure(() -> PlannedTrain.resolve(session, train("--plan fastest")))
                .startsWith("--plan must be BEST or a row number of the plan, 1 to 3, got"
                        + " 'fastest'."));
    }

    @Test
    void planViewShowsTheTableAndAScalingPlot() {
        planned();
        JobPlan p = session.lastPlan().plan();
        String text = (String) PlanView.table(p).getData(
                org.dflib.jjava.jupyter.kernel.display.mime.MIMEType.TEXT_PLAIN);
        assertTrue(text.startsWith("Plan for fraud, 5 epochs. Best (*): the cheapest"), text);
        assertTrue(text.contains("* 1"), text);
        assertTrue(text.contains("not measured"), text);
        String svg = (String) PlanView.chart(p).getData(
                org.dflib.jjava.jupyter.kernel.display.mime.MIMEType.IMAGE_SVG);
        assertTrue(svg.contains("viewBox=\"0 0 640 340\""), svg);
        assertEquals(2, svg.split("<circle").length - 2, "two points and one ring: " + svg);
    }

    @Test
    void scaleReadsItsTargetAndShowsSpeedupAgainstTheIdeal() {
        TrainRequest r = TrainGrammar.SCALE.read(List.of("fraud", "--label", "y", "--workers",
                "1:2", "--target", "0.9"), null);
        assertEquals(0.9, r.get(dev.dml.options.ScaleOptions.TARGET));
        dev.dml.scaling.ScaleTable t = dev.dml.scaling.ScaleTable.of("fraud", "accuracy", 0.9,
                List.of(new dev.dml.scaling.ScaleRow(1, 1000, 0, 0, 30, 0.95, 0, 40),
                        new dev.dml.scaling.ScaleRow(2, 1600, 0, 0, Double.NaN, 0.94, 0, 30)));
        assertEquals(1.6, t.rows().get(1).speedup(), 1e-12);
        assertEquals(0.8, t.rows().get(1).efficiency(), 1e-12);
        String text = (String) ScaleView.table(t).getData(
                org.dflib.jjava.jupyter.kernel.display.mime.MIMEType.TEXT_PLAIN);
        assertTrue(text.contains("time to accuracy 0.900") && text.contains("1.60x")
                && text.contains("80%") && text.contains("not reached"), text);
        String svg = (String) ScaleView.chart(t).getData(
                org.dflib.jjava.jupyter.kernel.display.mime.MIMEType.IMAGE_SVG);
        assertTrue(svg.contains("grey dashes: ideal") && svg.contains("Speedup over 1 worker"),
                svg);
    }
}

package dev.dml.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The plan's ranking: rows by predicted time, the Pareto front of time against dollars, and
 * the best row under a deadline, a budget, both, or neither.
 */
class JobPlanTest {

    private static final double NONE = Double.NaN;

    /** {@code workers} on one node at {@code usdPerHour}, taking {@code seconds}. */
    private static PlanRow row(int workers, double usdPerHour, double seconds) {
        return new PlanRow(0, workers, "1 x m5.xlarge on-demand", Market.ON_DEMAND, usdPerHour,
                seconds, "probe", false, "");
    }

    private static PlanRow spot(int workers, double usdPerHour, double seconds) {
        return new PlanRow(0, workers, "1 x m5.xlarge spot", Market.SPOT, usdPerHour, seconds,
                "probe", false, "the cluster's nodes are priced on-demand now");
    }

    private static PlanRow unmeasured(int workers, double usdPerHour) {
        return new PlanRow(0, workers, "1 x g5.xlarge on-demand", Market.ON_DEMAND, usdPerHour,
                Double.NaN, "time not measured", false, "time not measured");
    }

    // 1 worker on one node: 3600 s at $1/h = $1; 2 workers on one node: 2000 s = $0.556;
    // 4 workers on two nodes: 1200 s at $2/h = $0.667
    private static final List<PlanRow> SIZES = List.of(row(4, 2, 1200), row(1, 1, 3600),
            row(2, 1, 2000), unmeasured(1, 1.006));

    @Test
    void rowsGoByTimeWithUnmeasuredOnesLastAndTheFrontMarked() {
        JobPlan p = JobPlan.rank("job", SIZES, NONE, NONE, 10, 0.01);
        assertEquals(List.of(4, 2, 1, 1), p.rows().stream().map(PlanRow::workers).toList());
        assertEquals(List.of(1, 2, 3, 4), p.rows().stream().map(PlanRow::row).toList());
        // 1 worker is slower and dearer than 2: not on the front; 4 is fastest, 2 cheapest
        assertEquals(List.of(true, true, false, false),
                p.rows().stream().map(PlanRow::pareto).toList());
        assertFalse(p.rows().get(3).measured());
        assertEquals(2000 / 3600.0, p.rows().get(1).usd(), 1e-12);
    }

    @Test
    void withoutLimitsTheCheapestWins() {
        JobPlan p = JobPlan.rank("job", SIZES, NONE, NONE, 0, 0);
        assertEquals(2, p.best());
        assertEquals(2, p.choose("BEST").workers());
        assertTrue(p.why().startsWith("the cheapest"), p.why());
    }

    @Test
    void aDeadlinePicksTheCheapestThatMeetsIt() {
        JobPlan p = JobPlan.rank("job", SIZES, NONE, 1500, 0, 0);
        assertEquals(4, p.choose("best").workers());
        assertTrue(p.why().contains("within 25.0 min"), p.why());
    }

    @Test
    void aBudgetPicksTheFastestWithinIt() {
        assertEquals(4, JobPlan.rank("job", SIZES, 0.7, NONE, 0, 0).choose("BEST").workers());
        assertEquals(2, JobPlan.rank("job", SIZES, 0.6, NONE, 0, 0).choose("BEST").workers());
    }

    @Test
    void limitsNoRowMeetsLeaveNoBestAndSaySo() {
        JobPlan p = JobPlan.rank("job", SIZES, 0.1, 600, 0, 0);
        assertEquals(0, p.best());
        assertTrue(p.why().contains("finishes within 10.0 min (the fastest takes 20.0 min)"),
                p.why());
        assertTrue(p.why().contains("costs at most $0.1000 (the cheapest costs $0.5556)"),
                p.why());
        DmlException e = assertThrows(DmlException.class, () -> p.choose("BEST"));
        assertTrue(e.getMessage().startsWith("The plan has no best row"), e.getMessage());
    }

    @Test
    void aCheaperSpotRowIsNamedButNotPickedWhileTheNodesArePricedOnDemand() {
        List<PlanRow> rows = List.of(row(2, 1, 2000), spot(2, 0.3, 2000));
        JobPlan p = JobPlan.rank("job", rows, NONE, NONE, 0, 0);
        PlanRow best = p.choose("BEST");
        assertEquals(Market.ON_DEMAND, best.market());
        assertTrue(p.why().contains("(spot) would cost $0.1667"), p.why());
        int spotRow = p.rows().stream().filter(r -> r.market() == Market.SPOT).findFirst()
                .orElseThrow().row();
        DmlException e = assertThrows(DmlException.class, () -> p.choose("" + spotRow));
        assertTrue(e.getMessage().contains("priced on-demand now"), e.getMessage());
    }

    @Test
    void aFreeClusterPicksTheFastest() {
        List<PlanRow> rows = List.of(row(1, 0, 90), row(2, 0, 50));
        JobPlan p = JobPlan.rank("job", rows, NONE, NONE, 0, 0);
        assertEquals(2, p.choose("BEST").workers());
    }

    @Test
    void aBadOrUnmeasuredRowIsOneLine() {
        JobPlan p = JobPlan.rank("job", SIZES, NONE, NONE, 0, 0);
        DmlException bad = assertThrows(DmlException.class, () -> p.choose("7"));
        assertEquals("{plan} must be BEST or a row number of the plan, 1 to 4, got '7'.",
                bad.whatTemplate());
        DmlException notMeasured = assertThrows(DmlException.class, () -> p.choose("4"));
        assertTrue(notMeasured.getMessage().contains("cannot run here: time not measured"),
                notMeasured.getMessage());
    }
}

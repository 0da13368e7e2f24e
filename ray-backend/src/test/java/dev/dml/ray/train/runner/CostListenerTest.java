package dev.dml.ray.train.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.cost.Limits;
import dev.dml.cost.Market;
import dev.dml.cost.Pricing;
import dev.dml.events.JobCost;
import dev.dml.events.JobNotice;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A job's dollars and its budget, on a clock the test moves. */
class CostListenerTest {

    private static final long SECOND = 1_000_000_000L;
    private final List<Serializable> events = new ArrayList<>();
    private long now;

    private static WorkerInfo on(int rank, String node) {
        return new WorkerInfo(rank, 3, 100 + rank, "h", node, "10.0.0." + rank);
    }

    private static StepChunk steps(int n) {
        List<StepMetrics> s = new ArrayList<>(Collections.nCopies(n, new StepMetrics(1, 1, 1f,
                1, 1, 1, 0, 0, 0, List.of(), 0)));
        return new StepChunk(s, List.of(), List.of(), List.of());
    }

    private JobCost lastCost() {
        for (int i = events.size() - 1; i >= 0; i--) {
            if (events.get(i) instanceof JobCost c) {
                return c;
            }
        }
        throw new AssertionError("no cost event");
    }

    @Test
    void aJobPaysEachNodeItsWorkersOccupyWhole() {
        Map<String, Map<String, String>> labels = Map.of(
                "a", Map.of(Pricing.INSTANCE_TYPE, "g5.xlarge", Pricing.MARKET, "spot",
                        Pricing.CLOUD, "aws", Pricing.REGION, "us-east-1"),
                "b", Map.of());
        JobRate twoOnA = JobRate.of(List.of(on(0, "a"), on(1, "a")), Pricing.NONE, labels);
        assertEquals(0.40, twoOnA.usdPerHour(), 1e-9, "two workers on one node pay it once");
        assertTrue(twoOnA.spot());
        JobRate local = JobRate.of(List.of(on(0, "b")), Pricing.NONE, labels);
        assertEquals(0, local.usdPerHour());
        assertFalse(local.priced());
        assertEquals("1 node: not priced", local.nodes());
        JobRate both = JobRate.of(List.of(on(0, "a"), on(1, "b"), on(2, "c")),
                Pricing.NONE.withInstance("m5.xlarge", Market.ON_DEMAND, null, null), labels);
        assertEquals(0.40 + 2 * 0.192, both.usdPerHour(), 1e-9);
        assertTrue(both.nodes().startsWith("3 nodes: $0.4/h: aws g5.xlarge spot, us-east-1"),
                both.nodes());
        assertTrue(both.nodes().contains("; 2 x $0.192/h: aws m5.xlarge on-demand"),
                both.nodes());
    }

    @Test
    void aBudgetStopsTheJobBeforeTheStepThatWouldPassIt() {
        // $36/h is a cent a second; a step takes 2 s, 2 cents; the budget is 11 cents
        CostListener cost = new CostListener(new Limits(0.11, Double.NaN),
                w -> new JobRate(36, true, false, "1 node", ""), events::add, () -> now);
        cost.start(List.of(on(0, "a")), 0);
        now += 3 * SECOND; // loading the shards: 3 cents, but no step's pace
        assertEquals(1, cost.stepsUntilDue(0), "the pace is not known yet");
        long step = 0;
        while (cost.stopReason(step) == null) {
            long n = cost.stepsUntilDue(step);
            now += n * 2 * SECOND;
            step += n;
            cost.onSteps(null, steps((int) n), step);
        }
        JobCost last = lastCost();
        assertEquals(4, step, "1 step before the pace is known, then the 3 that 6 cents buy:"
                + " 2 (half), then 1");
        assertEquals(0.11, last.usdSpent(), 1e-9);
        assertTrue(last.usdSpent() <= 0.11 + 0.02, "overshoot at most one step's cost");
        assertEquals(2.0, last.secondsPerStep(), 1e-9);
        assertTrue(cost.stopReason(step).startsWith("{budget}: stopped after $0.1100 of"
                + " $0.11"), cost.stopReason(step));
    }

    @Test
    void aDeadlineStopsItInTimeAndARecoveryRepricesIt() {
        CostListener cost = new CostListener(new Limits(Double.NaN, 10),
                w -> new JobRate(w.size() * 3.6, true, true, w.size() + " nodes", ""),
                events::add, () -> now);
        cost.start(List.of(on(0, "a")), 0);
        now += SECOND;
        cost.onSteps(null, steps(1), 1);
        assertEquals(5, cost.stepsUntilDue(1), "half of the 9 that end in time");
        now += 3 * SECOND; // a lost node, replaced by two
        cost.workers(List.of(on(0, "b"), on(1, "c")), 1);
        assertEquals(7.2, lastCost().usdPerHour(), 1e-9);
        now += SECOND;
        cost.end(1);
        assertEquals(0.004 + 0.002, lastCost().usdSpent(), 1e-9, "4 s at $3.60/h, 1 at $7.20");
        now += 4 * SECOND;
        assertNull(cost.stopReason(1), "at 9 s, a 1 s step ends in time");
        now += SECOND / 2;
        assertTrue(cost.stopReason(1).startsWith("{deadline}: stopped after 9.5 s of 10 s"));
    }

    @Test
    void aBudgetOnUnpricedNodesIsRefusedAndAnUnknownPriceIsSaid() {
        CostListener free = new CostListener(new Limits(1, Double.NaN),
                w -> new JobRate(0, false, false, "1 node: not priced", ""), events::add,
                () -> now);
        DmlException e = assertThrows(DmlException.class, () -> free.start(List.of(), 0));
        assertEquals("--budget needs the job's nodes priced, and they are not (1 node: not"
                + " priced).", e.speaking(Vocabulary.NOTEBOOK).what());
        CostListener unknown = new CostListener(Limits.NONE,
                w -> new JobRate(Double.NaN, true, false, "1 node", "No price catalogue lists"
                        + " x9.huge on-demand."), events::add, () -> now);
        unknown.start(List.of(), 0);
        assertTrue(((JobNotice) events.get(0)).template().startsWith("The job's cost is not"
                + " known: No price catalogue lists x9.huge"));
        assertTrue(Double.isNaN(lastCost().usdPerHour()));
        assertEquals(0, lastCost().usdSpent());
    }
}

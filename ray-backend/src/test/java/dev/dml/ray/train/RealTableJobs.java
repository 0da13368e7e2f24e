package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.selection.Selection;

/** What the tests on real tables share: a job run in LOCAL mode, a held-out split, accuracy. */
public final class RealTableJobs {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    private RealTableJobs() {}

    /**
     * Runs a job in this JVM (Ray's LOCAL mode must be started) and checks it cleaned up.
     *
     * @param spec the job
     * @return its result
     */
    public static TrainResult run(TrainSpec spec) {
        FakeDriverContext ctx = new FakeDriverContext();
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources");
        return r;
    }

    /** Every 4th row, for a held-out test table. */
    static Selection everyFourth(Table t) {
        Selection s = Selection.withRange(0, 0);
        for (int i = 0; i < t.rowCount(); i += 4) {
            s.add(i);
        }
        return s;
    }

    /** The fraction of rows where the two columns agree. */
    static double accuracy(StringColumn predicted, StringColumn truth) {
        int right = 0;
        for (int i = 0; i < truth.size(); i++) {
            right += predicted.get(i).equals(truth.get(i)) ? 1 : 0;
        }
        return (double) right / truth.size();
    }
}

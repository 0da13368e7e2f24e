package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.ProcessSample;
import dev.dml.events.WorkerInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GPU figures reach the bars and the summary only from workers that have a GPU. */
class WorkerTotalsTest {

    private static final long MIB = 1L << 20;

    @Test
    void gpuWorkersGetMeanUtilisationAndPeakMemory() {
        WorkerTotals t = new WorkerTotals();
        t.add(List.of(new ProcessSample(90, 10 * MIB, 100 * MIB, 80, 2_000 * MIB),
                new ProcessSample(95, 10 * MIB, 100 * MIB, 60, 1_000 * MIB)));
        t.add(List.of(new ProcessSample(90, 10 * MIB, 100 * MIB, 100, 1_500 * MIB),
                new ProcessSample(95, 10 * MIB, 100 * MIB, 70, 3_000 * MIB)));
        assertEquals(2, t.latestGpu().length);
        List<WorkerStats> s = t.stats(List.of(new WorkerInfo(0, 2, 11, "a"),
                new WorkerInfo(1, 2, 22, "b")));
        assertEquals(90, s.get(0).meanGpuPercent());
        assertEquals(2_000 * MIB, s.get(0).peakGpuMemoryBytes());
        assertEquals(65, s.get(1).meanGpuPercent());
        assertEquals(3_000 * MIB, s.get(1).peakGpuMemoryBytes());
        String table = SummaryTable.text(new JobSummary("j", false, 1, 2, 0.1, Double.NaN,
                Double.NaN, 10, s, List.of(), JobCosts.NONE, Double.NaN));
        assertTrue(table.contains("mean GPU  peak GPU memory\n"), table);
        assertTrue(table.contains("90 %      1.95 GiB\n"), table);
    }

    @Test
    void cpuWorkersShowNoGpu() {
        WorkerTotals t = new WorkerTotals();
        t.add(List.of(new ProcessSample(90, 10 * MIB, 100 * MIB)));
        assertEquals(0, t.latestGpu().length);
        List<WorkerStats> s = t.stats(List.of(new WorkerInfo(0, 1, 11, "a")));
        assertFalse(s.get(0).hasGpu());
        String table = SummaryTable.text(new JobSummary("j", false, 1, 2, 0.1, Double.NaN,
                Double.NaN, 10, s, List.of(), JobCosts.NONE, Double.NaN));
        assertFalse(table.contains("GPU"), table);
    }
}

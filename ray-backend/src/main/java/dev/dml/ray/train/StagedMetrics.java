package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.ray.collective.WorkerInfo;
import dev.dml.ray.pipeline.StageReport;
import java.util.List;

/** Turns the stage actors' step reports into the job's events, in the driver. */
final class StagedMetrics {

    private final Strategy.Staged strategy;
    private final int batchSize;
    private double epochLoss;
    private int epochSteps;
    private long epochStart = System.nanoTime();

    StagedMetrics(Strategy.Staged strategy, int batchSize) {
        this.strategy = strategy;
        this.batchSize = batchSize;
    }

    /**
     * The step's metrics: the loss averaged over replicas, the slowest stage's busy and
     * all-reduce times, and every actor's process sample, in {@code who}'s order.
     */
    StepMetrics step(int epoch, long step, List<List<StageReport>> reps, double wallSeconds,
            List<WorkerInfo> who) {
        checkReplicasAgree(step, reps, who);
        int d = reps.size();
        int k = reps.get(0).size();
        double[] cpu = new double[d * k];
        long[] heap = new long[d * k];
        long[] rss = new long[d * k];
        float loss = 0;
        long busy = 0;
        long comm = 0;
        long bytes = 0;
        for (int r = 0; r < d; r++) {
            loss += reps.get(r).get(k - 1).loss() / d;
            for (int s = 0; s < k; s++) {
                StageReport rep = reps.get(r).get(s);
                cpu[r * k + s] = rep.cpuPercent();
                heap[r * k + s] = rep.heapBytes();
                rss[r * k + s] = rep.rssBytes();
                busy = Math.max(busy, rep.busyNanos());
                comm = Math.max(comm, rep.allReduceNanos());
                bytes += rep.allReduceBytes();
            }
        }
        epochLoss += loss;
        epochSteps++;
        int examples = batchSize * d;
        return new StepMetrics(epoch, step, loss, examples,
                wallSeconds > 0 ? examples / wallSeconds : 0, busy / 1e6, comm / 1e6, bytes,
                cpu, heap, rss);
    }

    /** Each stage's busy, all-reduce and idle time (means over replicas), and bytes moved. */
    PipelineMetrics pipeline(long step, List<List<StageReport>> reps, double wallSeconds) {
        int d = reps.size();
        int k = reps.get(0).size();
        double wall = wallSeconds * 1e3;
        double[] busy = new double[k];
        double[] reduce = new double[k];
        double[] idle = new double[k];
        long moved = 0;
        for (int s = 0; s < k; s++) {
            for (List<StageReport> replica : reps) {
                StageReport rep = replica.get(s);
                busy[s] += rep.busyNanos() / 1e6 / d;
                reduce[s] += rep.allReduceNanos() / 1e6 / d;
                moved += rep.activationBytes();
            }
            idle[s] = Math.max(0, wall - busy[s] - reduce[s]);
        }
        return new PipelineMetrics(step, wall, busy, idle, reduce, moved,
                strategy.microbatches());
    }

    /** The epoch's mean loss and throughput; resets the epoch's sums. */
    EpochMetrics epoch(int epoch, long steps) {
        double seconds = (System.nanoTime() - epochStart) / 1e9;
        EpochMetrics em = new EpochMetrics(epoch, steps, (float) (epochLoss / epochSteps),
                seconds, (double) epochSteps * batchSize * strategy.replicas() / seconds, null);
        epochLoss = 0;
        epochSteps = 0;
        epochStart = System.nanoTime();
        return em;
    }

    private static void checkReplicasAgree(long step, List<List<StageReport>> reps,
            List<WorkerInfo> who) {
        int k = reps.get(0).size();
        for (int r = 1; r < reps.size(); r++) {
            for (int s = 0; s < k; s++) {
                if (reps.get(r).get(s).parameterHash() != reps.get(0).get(s).parameterHash()) {
                    throw new DmlException("The replicas diverged at step " + step + ": stage "
                            + s + " of replica " + r + " (" + who.get(r * k + s) + ") has other"
                            + " parameters than replica 0.",
                            "Report this as a bug in dml, with the job's spec.");
                }
            }
        }
    }
}

package dev.dml.ray.train.device;

import dev.dml.events.PipelineMetrics;
import dev.dml.events.ProcessSample;
import dev.dml.events.StepMetrics;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * What one worker did in one call, step by step, and how its process looked at the end: a
 * data-parallel rank's run of steps, or a stage's end of one step. Crosses Ray, so a plain
 * Serializable class.
 */
public final class WorkerReport implements Serializable {

    private static final long serialVersionUID = 2L;

    /** Each step's loss; NaN on a stage that computes none (all but the last). */
    final float[] losses;
    /** Each step's forward, backward and optimizer time. */
    public final long[] computeNanos;
    /** Each step's all-reduce time, waiting for peers included. */
    public final long[] commNanos;
    /** Each step's bytes sent to peers in the all-reduce. */
    final long[] allReduceBytes;
    /** The part of each step's {@link #allReduceBytes} sent to peers on other nodes. */
    final long[] interNodeBytes;
    /** Activations and their gradients this stage sent on (staged jobs; 0 otherwise). */
    public final long activationBytes;
    /** A hash of the parameters after the last step: replicas must agree. */
    public final long parameterHash;
    final ProcessSample process;
    /** Whether this worker got a pre-emption notice: it ended the call early, with its peers. */
    public final boolean leaving;
    /** Wall clock when the worker made this report, for the live plot's latency. */
    final long reportedAtMillis = System.currentTimeMillis();

    public WorkerReport(float[] losses, long[] computeNanos, long[] commNanos,
            long[] allReduceBytes, long[] interNodeBytes, long activationBytes, long parameterHash,
            ProcessSample process, boolean leaving) {
        this.losses = losses;
        this.computeNanos = computeNanos;
        this.commNanos = commNanos;
        this.allReduceBytes = allReduceBytes;
        this.interNodeBytes = interNodeBytes;
        this.activationBytes = activationBytes;
        this.parameterHash = parameterHash;
        this.process = process;
        this.leaving = leaving;
    }

    /** The steps this report covers. */
    public int steps() {
        return losses.length;
    }

    /**
     * One step of several workers' reports as the job's event: the mean of the losses the
     * workers computed, the slowest worker's compute and all-reduce times, every byte sent.
     *
     * @param reports the workers' reports, by rank
     * @param i the step's index within the reports
     * @param epoch the step's epoch, counting from 1
     * @param step the step's number over the job, counting from 1
     * @param examples the rows of the global batch
     * @param wallSeconds the step's wall time as the driver saw it, or NaN to take the slowest
     *     worker's compute and all-reduce time
     * @return the event
     */
    public static StepMetrics merge(List<WorkerReport> reports, int i, int epoch, long step,
            int examples, double wallSeconds) {
        double loss = 0;
        int losses = 0;
        long compute = 0;
        long comm = 0;
        long bytes = 0;
        long inter = 0;
        long reportedAt = 0;
        for (WorkerReport r : reports) {
            if (!Float.isNaN(r.losses[i])) {
                loss += r.losses[i];
                losses++;
            }
            compute = Math.max(compute, r.computeNanos[i]);
            comm = Math.max(comm, r.commNanos[i]);
            bytes += r.allReduceBytes[i];
            inter += r.interNodeBytes[i];
            reportedAt = Math.max(reportedAt, r.reportedAtMillis);
        }
        double seconds = Double.isNaN(wallSeconds) ? (compute + comm) / 1e9 : wallSeconds;
        return new StepMetrics(epoch, step, losses == 0 ? Float.NaN : (float) (loss / losses),
                examples, seconds > 0 ? examples / seconds : 0, compute / 1e6, comm / 1e6, bytes,
                inter, reports.stream().map(r -> r.process).toList(), reportedAt);
    }

    /**
     * Step {@code i}'s time on each stage of a staged job, the mean over the stage's replicas.
     *
     * @param reps each replica's reports, by stage
     * @param i the step within the call
     * @param n the steps of the call
     * @param wall a step's share of the call's wall time, in seconds
     * @return a time per stage
     */
    public static List<PipelineMetrics.StageTime> stageTimes(List<List<WorkerReport>> reps,
            int i, int n, double wall) {
        int d = reps.size();
        List<PipelineMetrics.StageTime> stages = new ArrayList<>();
        for (int s = 0; s < reps.get(0).size(); s++) {
            double busy = 0;
            double reduce = 0;
            long moved = 0;
            for (List<WorkerReport> replica : reps) {
                WorkerReport rep = replica.get(s);
                busy += rep.computeNanos[i] / 1e6 / d;
                reduce += rep.commNanos[i] / 1e6 / d;
                moved += rep.activationBytes / n; // the same every step
            }
            stages.add(new PipelineMetrics.StageTime(busy,
                    Math.max(0, wall * 1e3 - busy - reduce), reduce, moved));
        }
        return stages;
    }
}

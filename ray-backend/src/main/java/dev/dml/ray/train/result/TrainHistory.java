package dev.dml.ray.train.result;

import dev.dml.events.EpochMetrics;
import dev.dml.events.RegressionMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import java.util.ArrayList;
import java.util.List;
import tech.tablesaw.api.Table;

/**
 * What a job did, in order, as DJL's {@code TrainingResult} keeps it: the metrics of its steps
 * and epochs, its workers, how far it got (global steps, the checkpoint it resumed from, whether
 * it was stopped or {@code --early-stop} ended it) and its wall time. Immutable; the part of a
 * {@link TrainResult} its history and metric tables come from.
 */
public final class TrainHistory {

    private final ArrayList<StepMetrics> steps;
    private final ArrayList<EpochMetrics> epochs;
    private final ArrayList<WorkerInfo> workers;
    private final long globalSteps;
    private final long resumedFromStep;
    private final boolean stopped;
    private final double wallSeconds;
    /** {@code --early-stop}: the epoch it stopped after, and the epoch kept; 0 when none. */
    private final int stoppedEarlyAfter;
    private final int keptEpoch;

    public TrainHistory(List<StepMetrics> steps, List<EpochMetrics> epochs,
            List<WorkerInfo> workers, long globalSteps, long resumedFromStep, boolean stopped,
            double wallSeconds,
            int stoppedEarlyAfter, int keptEpoch) {
        this.steps = new ArrayList<>(steps);
        this.epochs = new ArrayList<>(epochs);
        this.workers = new ArrayList<>(workers);
        this.globalSteps = globalSteps;
        this.resumedFromStep = resumedFromStep;
        this.stopped = stopped;
        this.wallSeconds = wallSeconds;
        this.stoppedEarlyAfter = stoppedEarlyAfter;
        this.keptEpoch = keptEpoch;
    }

    /** This history with another wall time. */
    public TrainHistory withWallSeconds(double seconds) {
        return new TrainHistory(steps, epochs, workers, globalSteps, resumedFromStep, stopped,
                seconds, stoppedEarlyAfter, keptEpoch);
    }

    /** This history with what {@code --early-stop} did. */
    public TrainHistory withEarlyStop(int stoppedAfter, int kept) {
        return new TrainHistory(steps, epochs, workers, globalSteps, resumedFromStep, stopped,
                wallSeconds, stoppedAfter, kept);
    }

    /** The steps kept, in order (see {@link TrainResult#steps()}), as saved: not copied. */
    public ArrayList<StepMetrics> stepList() {
        return steps;
    }

    /** The epochs, in order, as saved: not copied. */
    public ArrayList<EpochMetrics> epochList() {
        return epochs;
    }

    /** The workers, by rank, as saved: not copied. */
    public ArrayList<WorkerInfo> workerList() {
        return workers;
    }

    public long globalSteps() {
        return globalSteps;
    }

    public long resumedFromStep() {
        return resumedFromStep;
    }

    public boolean stopped() {
        return stopped;
    }

    public double wallSeconds() {
        return wallSeconds;
    }

    public int stoppedEarlyAfter() {
        return stoppedEarlyAfter;
    }

    public int keptEpoch() {
        return keptEpoch;
    }

    /** The last step's loss; NaN when no step ran. */
    public float finalLoss() {
        return steps.isEmpty() ? Float.NaN : steps.get(steps.size() - 1).loss();
    }

    /** The notice that the loss was still falling clearly; null for a stopped job. */
    public String lossTrend() {
        return stopped || stoppedEarlyAfter > 0 ? null : LossTrend.notice(epochs);
    }

    /** The last epoch's regression metrics, or {@link RegressionMetrics#NONE}. */
    public RegressionMetrics validationRegression() {
        return MetricTables.lastRegression(epochs);
    }

    /** The steps as a table of job {@code job}. */
    public Table stepTable(String job) {
        return MetricTables.steps(job, steps);
    }

    /** The epochs as a table of job {@code job}. */
    public Table epochTable(String job) {
        return MetricTables.epochs(job, epochs);
    }
}

package dev.dml.magics.live;

import dev.dml.events.Recovery;
import dev.dml.events.RegressionMetrics;
import java.util.List;

/**
 * The outcome of a training job, shown as a table when it ends.
 *
 * @param job the job's name
 * @param stopped true when the user stopped the job before it finished
 * @param wallSeconds wall time from start to end
 * @param steps steps completed
 * @param finalLoss the last training loss reported; NaN when none was
 * @param accuracy the last validation accuracy, 0 to 1; NaN when not known
 * @param auc the last validation ROC AUC; NaN when not known
 * @param examplesPerSecond mean throughput over the run, all workers together, the first
 *     steps' warm-up included
 * @param workers each worker's resource use, by rank
 * @param recoveries the job's recoveries from lost or pre-empted workers, in order
 * @param cost the job's dollars at its end
 * @param epochsRun the epochs this run trained, fractions included; NaN when not known
 * @param regression the last validation RMSE, MAE and R² of a regression; {@link
 *     RegressionMetrics#NONE} when not known
 * @param links how the workers' collectives reached each other ({@code tcp}, {@code ray}, or
 *     a mix with the reason a link fell back); empty for a single worker
 * @param lastExamplesPerSecond the last step's throughput, all workers together: what the
 *     progress line called "now"; NaN when not known
 */
public record JobSummary(String job, boolean stopped, double wallSeconds, long steps,
        double finalLoss, double accuracy, double auc, double examplesPerSecond,
        List<WorkerStats> workers, List<Recovery> recoveries, JobCosts cost,
        double epochsRun, RegressionMetrics regression, String links,
        double lastExamplesPerSecond) {

    /** Copies the lists. */
    public JobSummary {
        workers = List.copyOf(workers);
        recoveries = List.copyOf(recoveries);
        regression = regression == null ? RegressionMetrics.NONE : regression;
        links = links == null ? "" : links;
    }

    /**
     * The outcome of a job whose last step's throughput is not known.
     *
     * @param job the job's name
     * @param stopped true when the user stopped the job
     * @param wallSeconds wall time
     * @param steps steps completed
     * @param finalLoss the last training loss
     * @param accuracy the last validation accuracy
     * @param auc the last validation ROC AUC
     * @param examplesPerSecond mean throughput
     * @param workers each worker's resource use
     * @param recoveries the job's recoveries
     * @param cost the job's dollars
     * @param epochsRun the epochs this run trained
     * @param regression the last validation regression metrics
     * @param links how the workers reached each other
     */
    public JobSummary(String job, boolean stopped, double wallSeconds, long steps,
            double finalLoss, double accuracy, double auc, double examplesPerSecond,
            List<WorkerStats> workers, List<Recovery> recoveries, JobCosts cost,
            double epochsRun, RegressionMetrics regression, String links) {
        this(job, stopped, wallSeconds, steps, finalLoss, accuracy, auc, examplesPerSecond,
                workers, recoveries, cost, epochsRun, regression, links, Double.NaN);
    }

    /**
     * The outcome of a job without regression metrics.
     *
     * @param job the job's name
     * @param stopped true when the user stopped the job
     * @param wallSeconds wall time
     * @param steps steps completed
     * @param finalLoss the last training loss
     * @param accuracy the last validation accuracy
     * @param auc the last validation ROC AUC
     * @param examplesPerSecond mean throughput
     * @param workers each worker's resource use
     * @param recoveries the job's recoveries
     * @param cost the job's dollars
     * @param epochsRun the epochs this run trained
     */
    public JobSummary(String job, boolean stopped, double wallSeconds, long steps,
            double finalLoss, double accuracy, double auc, double examplesPerSecond,
            List<WorkerStats> workers, List<Recovery> recoveries, JobCosts cost,
            double epochsRun) {
        this(job, stopped, wallSeconds, steps, finalLoss, accuracy, auc, examplesPerSecond,
                workers, recoveries, cost, epochsRun, RegressionMetrics.NONE, "");
    }
}

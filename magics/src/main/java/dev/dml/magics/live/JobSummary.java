package dev.dml.magics.live;
import java.util.List;
/** TEMP */
public record JobSummary(String job, boolean stopped, double wallSeconds, long steps,
        double finalLoss, double accuracy, double auc,
        double examplesPerSecond, List<WorkerStats> workers) {}

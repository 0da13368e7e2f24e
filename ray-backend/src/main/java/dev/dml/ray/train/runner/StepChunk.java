package dev.dml.ray.train.runner;

import dev.dml.events.PipelineMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.train.device.WorkerReport;
import java.util.List;

/**
 * What one call of a {@link StrategyWorkers} ran: each step's metrics, a staged job's pipeline
 * metrics, and the parameter hashes of the workers that must hold the same parameters. Stays in
 * the driver.
 *
 * @param steps one per step, in order
 * @param pipeline one per step of a staged job; empty for data parallelism
 * @param replicas the sets of workers whose parameters must agree
 * @param leaving the workers (indexes into the job's worker list) that got a pre-emption
 *     notice: the steps ended early, with every worker at the same step
 */
record StepChunk(List<StepMetrics> steps, List<PipelineMetrics> pipeline,
        List<ReplicaSet> replicas, List<Integer> leaving) {

    StepChunk {
        steps = List.copyOf(steps);
        pipeline = List.copyOf(pipeline);
        replicas = List.copyOf(replicas);
        leaving = List.copyOf(leaving);
    }

    /** The indexes of the reports, in worker order, whose worker is leaving. */
    static List<Integer> leaving(List<WorkerReport> byWorker) {
        List<Integer> out = new java.util.ArrayList<>();
        for (int i = 0; i < byWorker.size(); i++) {
            if (byWorker.get(i).leaving) {
                out.add(i);
            }
        }
        return out;
    }

    /**
     * Workers that hold copies of the same parameters: every rank of a data-parallel job, or a
     * stage's replicas.
     *
     * @param what what they hold, for messages: "the model" or "stage 2"
     * @param workers the workers
     * @param hashes each worker's parameter hash, in the same order
     */
    record ReplicaSet(String what, List<WorkerInfo> workers, long[] hashes) {}
}

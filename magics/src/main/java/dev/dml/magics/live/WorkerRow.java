package dev.dml.magics.live;

/**
 * One worker of a job, as the dashboard labels it.
 *
 * @param rank the worker's rank, counting from 0; per-worker arrays in {@link StepSample} are
 *     indexed by it
 * @param node the host (or Ray node) the worker runs on
 * @param pid the worker's process id
 */
public record WorkerRow(int rank, String node, long pid) {
}

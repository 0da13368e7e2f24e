package dev.dml.ray.train.worker;

/**
 * How a {@link TrainWorker} runs a range of training steps for its job's strategy: {@link
 * DataParallelStep} (synchronous, the all-reduce overlapping the backward or not), {@link
 * AsyncStep} (through parameter servers) or {@link StageStep} (a pipeline or model stage over
 * direct links). The worker holds the one its job uses and adds the parameters' hash and a
 * process sample to what it returns.
 */
interface StepStrategy extends AutoCloseable {

    /**
     * Runs a range of steps here; every peer runs the same range.
     *
     * @param job the worker's model, rows and settings
     * @param range the steps
     * @return what the steps did (fewer than asked when a pre-emption notice stopped them)
     */
    StepsDone run(WorkerJob job, StepRange range);

    /**
     * Returns the steps this worker completed over the job, as of its last step.
     *
     * @return the count, or -1 before the first
     */
    long completed();

    /** Frees what the strategy holds (links, threads, extra shards). */
    @Override
    void close();
}

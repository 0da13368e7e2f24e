package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.events.ProgressListener;
import dev.dml.ray.train.result.TrainResult;

/**
 * Receives a training job's progress in the kernel JVM while the job runs ({@link
 * ProgressListener}), and its result when it ends.
 *
 * <p>Calls come in order (start, steps and epochs interleaved, end) from one thread, the
 * driver's reader thread; a listener should return quickly. A listener that throws loses that
 * event only: progress never fails the job it reports on.
 */
public interface TrainingListener extends ProgressListener {

    /**
     * Called once when the job ends normally or was stopped; not called when it failed.
     *
     * @param result the result
     */
    default void onEnd(TrainResult result) {}

    /**
     * Called once when the job failed (a worker died, a bad value, its actors killed); then
     * {@link #onEnd} is not called.
     *
     * @param error what the job's {@code await()} throws
     */
    default void onFailed(DmlException error) {}
}

package dev.dml.bench;

/**
 * The size of a benchmark's training job: the batch per worker, the steps of an epoch and the
 * epochs, of which the first is the warm-up (fresh worker JVMs) and the rest are timed.
 *
 * @param batch rows per worker per step
 * @param steps steps per epoch
 * @param epochs epochs, at least 2
 */
record JobSize(int batch, int steps, int epochs) {

    /** The rows one worker's shard holds: one epoch of its batches. */
    int rows() {
        return steps * batch;
    }

    /** The steps of the timed epochs: all but the first. */
    int timedSteps() {
        return (epochs - 1) * steps;
    }
}

package dev.dml.ray.train;

import java.io.Serializable;

/** Which steps a {@link TrainWorker#trainSteps} call runs; crosses Ray. */
public final class StepRange implements Serializable {

    private static final long serialVersionUID = 1L;

    final int epoch;
    final int first;
    final int count;
    final long globalFirst;
    /** Whether the workers take an in-memory snapshot before the first step. */
    final boolean snapshot;

    /**
     * Creates a range.
     *
     * @param epoch the epoch
     * @param first the first step within the epoch
     * @param count how many steps
     * @param globalFirst the number of steps the job ran before this range
     * @param snapshot whether the workers take a snapshot before the first step
     */
    public StepRange(int epoch, int first, int count, long globalFirst, boolean snapshot) {
        this.epoch = epoch;
        this.first = first;
        this.count = count;
        this.globalFirst = globalFirst;
        this.snapshot = snapshot;
    }
}

package dev.dml.ray.train;

import java.io.Serializable;

/** Which steps a {@link TrainWorker#trainSteps} call runs; crosses Ray. */
public final class StepRange implements Serializable {

    private static final long serialVersionUID = 1L;

    final int epoch;
    final int first;
    final int count;
    final long globalFirst;

    /**
     * Creates a range.
     *
     * @param epoch the epoch
     * @param first the first step within the epoch
     * @param count how many steps
     * @param globalFirst the number of steps the job ran before this range
     */
    public StepRange(int epoch, int first, int count, long globalFirst) {
        this.epoch = epoch;
        this.first = first;
        this.count = count;
        this.globalFirst = globalFirst;
    }
}

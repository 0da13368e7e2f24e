package dev.dml.ray.train.worker;

import java.io.Serializable;

/** Which steps a {@link TrainWorker#trainSteps} call runs; crosses Ray. */
public final class StepRange implements Serializable {

    private static final long serialVersionUID = 1L;

    public final int epoch;
    final int first;
    public final int count;
    public final long globalFirst;
    /** Whether the workers take an in-memory snapshot before the first step. */
    public final boolean snapshot;
    /**
     * Whether the driver sent this range before the previous one's report came back: the
     * workers run it only if they ended that one at {@link #globalFirst}, not stopped.
     */
    final boolean ahead;

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
        this(epoch, first, count, globalFirst, snapshot, false);
    }

    private StepRange(int epoch, int first, int count, long globalFirst, boolean snapshot,
            boolean ahead) {
        this.epoch = epoch;
        this.first = first;
        this.count = count;
        this.globalFirst = globalFirst;
        this.snapshot = snapshot;
        this.ahead = ahead;
    }

    /** This range, sent ahead of the previous one's report; see {@link #ahead}. */
    public StepRange sentAhead() {
        return new StepRange(epoch, first, count, globalFirst, snapshot, true);
    }

    /** The step after this range's last. */
    public long end() {
        return globalFirst + count;
    }
}

package dev.dml.ray.train.worker;

import java.io.Serializable;

/**
 * A stage's training state (parameters and optimizer state) at the start of a step, kept in a
 * worker's memory for recovery: its own, or a copy of another stage's. Crosses Ray, so a plain
 * Serializable class.
 */
public final class SnapshotCopy implements Serializable {

    private static final long serialVersionUID = 1L;

    /** What a worker without a snapshot of the stage answers. */
    static final SnapshotCopy NONE = new SnapshotCopy(-1, -1, TrainWorker.NONE);

    final int stage;
    /** The steps the job had completed when it was taken; -1 for {@link #NONE}. */
    public final long step;
    public final byte[] state;

    SnapshotCopy(int stage, long step, byte[] state) {
        this.stage = stage;
        this.step = step;
        this.state = state;
    }

    public boolean exists() {
        return step >= 0;
    }
}

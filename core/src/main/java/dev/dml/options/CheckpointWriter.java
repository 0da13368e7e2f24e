package dev.dml.options;

/** Who writes a job's checkpoints ({@code --checkpoint-store}). */
public enum CheckpointWriter implements Choice {
    /** The driver, on its machine. */
    DRIVER,
    /** The workers, into a folder every node mounts. */
    SHARED;

    @Override
    public String toString() {
        return word();
    }
}

package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.events.JobNotice;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a checkpoint every {@code every} steps into the job's {@link CheckpointStore}. A
 * write that fails (a full disk, a folder gone) is reported in the cell, once until writes
 * work again, and the job trains on; with {@code --checkpoint-failure stop} it ends instead.
 */
final class CheckpointListener implements DriverListener {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointListener.class);

    private final CheckpointStore store;
    private final int every;
    private final int stepsPerEpoch;
    private final boolean stopOnFailure;
    private final Consumer<JobNotice> notices;
    private long lastWritten = -1;
    private int failedInARow;

    CheckpointListener(CheckpointStore store, int every, int stepsPerEpoch,
            boolean stopOnFailure, Consumer<JobNotice> notices) {
        this.store = store;
        this.every = every;
        this.stepsPerEpoch = stepsPerEpoch;
        this.stopOnFailure = stopOnFailure;
        this.notices = notices;
    }

    @Override
    public long stepsUntilDue(long step) {
        return every - step % every;
    }

    @Override
    public void onSteps(StrategyWorkers plan, StepChunk chunk, long step) {
        if (step % every != 0) {
            return;
        }
        try {
            Path file = store.write(plan, step, stepsPerEpoch);
            LOG.info("checkpoint at step {}: {}", step, file);
            if (failedInARow > 0) {
                notices.accept(new JobNotice(step, "Checkpoints are written again from step "
                        + step + ", after " + failedInARow + " failed."));
            }
            failedInARow = 0;
            lastWritten = step;
        } catch (IOException | DmlException e) {
            String why = e instanceof DmlException d ? d.what()
                    : DmlException.literal(e.getMessage() != null ? e.getMessage()
                            : e.getClass().getSimpleName());
            why = why.endsWith(".") ? why : why + ".";
            LOG.warn("checkpoint at step {} failed: {}", step, why, e);
            if (stopOnFailure) {
                throw new DmlException("The checkpoint of step " + step + " could not be"
                        + " written: " + why + " The job stops, as {checkpoint-failure} stop"
                        + " asks.", "Free space in {checkpoint-dir} or pass another folder, then"
                        + " run again with {resume}.", e);
            }
            if (failedInARow++ == 0) {
                notices.accept(new JobNotice(step, "The checkpoint of step " + step + " could"
                        + " not be written: " + why + " Training goes on; "
                        + (lastWritten < 0 ? "no checkpoint was written yet."
                                : "the last checkpoint is of step " + lastWritten + ".")));
            }
        }
    }
}

package dev.dml.ray.train;

import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a checkpoint every {@code every} steps: the driver asks the workers for each stage's
 * state and writes one file where the user asked, so the workers need no shared file system.
 */
final class CheckpointListener implements DriverListener {

    private static final Logger LOG = LoggerFactory.getLogger(CheckpointListener.class);

    private final Path dir;
    private final int every;
    private final int stepsPerEpoch;

    CheckpointListener(Path dir, int every, int stepsPerEpoch) {
        this.dir = dir;
        this.every = every;
        this.stepsPerEpoch = stepsPerEpoch;
    }

    @Override
    public long stepsUntilDue(long step) {
        return every - step % every;
    }

    @Override
    public void onSteps(StepPlan plan, StepChunk chunk, long step) {
        if (step % every == 0) {
            Path file = Checkpoints.write(dir, step, stepsPerEpoch, plan.saveState());
            LOG.info("checkpoint at step {}: {}", step, file);
        }
    }
}

package dev.dml.kernel.backend;

import dev.dml.events.ProgressListener;
import dev.dml.magics.AttachedRun;
import dev.dml.ray.runs.RunFollower;
import dev.dml.ray.train.result.TrainResult;
import java.time.Duration;
import java.util.Locale;

/**
 * {@code %dml attach}'s run: a {@link RunFollower} on the default run store.
 *
 * @param runId the run, as {@code %dml runs} lists it
 * @param follower its follower, owned by this run
 */
record FollowedRun(String runId, RunFollower follower) implements AttachedRun {

    @Override
    public String name() {
        return follower.name();
    }

    @Override
    public int epochs() {
        return follower.epochs();
    }

    @Override
    public long totalSteps() {
        return follower.totalSteps();
    }

    @Override
    public String follow(ProgressListener progress, Duration poll) throws InterruptedException {
        return follower.follow(progress, poll).name().toLowerCase(Locale.ROOT);
    }

    @Override
    public Object result() {
        return TrainResult.open(runId);
    }

    @Override
    public String error() {
        return follower.error();
    }

    @Override
    public void close() {
        follower.close();
    }
}

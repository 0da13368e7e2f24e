package dev.dml.kernel.backend;

import dev.dml.events.WorkerInfo;
import dev.dml.magics.RunningJob;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.result.TrainResult;
import java.time.Duration;
import java.util.List;

/** A started {@code %dml train} job: the engine's {@link TrainJob}, as the magics see it. */
final class RunningRayJob implements RunningJob {

    private final TrainJob job;

    RunningRayJob(TrainJob job) {
        this.job = job;
    }

    @Override
    public String id() {
        return job.id();
    }

    @Override
    public List<WorkerInfo> workers() {
        return job.workers();
    }

    @Override
    public boolean awaitEnd(Duration timeout) throws InterruptedException {
        return job.awaitEnd(timeout);
    }

    @Override
    public JobOutcome outcome() {
        if (!job.isDone()) {
            throw new IllegalStateException("job " + job.id() + " is still running");
        }
        TrainResult r = job.await();
        return new JobOutcome(r.stopped(), r.wallSeconds(), r);
    }

    @Override
    public void stop() {
        job.stop();
    }
}

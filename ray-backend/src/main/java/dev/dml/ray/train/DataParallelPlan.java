package dev.dml.ray.train;

import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.collective.ActorGroup;
import java.util.ArrayList;
import java.util.List;

/**
 * Data parallelism: every rank holds the whole model and trains on its own shard, averaging
 * gradients with its peers after every step, a few steps per call.
 */
final class DataParallelPlan implements StepPlan {

    private final int workers;
    private final int batchSize;
    private ActorGroup<TrainWorker> group;
    private List<WorkerInfo> who;

    DataParallelPlan(int workers, int batchSize) {
        this.workers = workers;
        this.batchSize = batchSize;
    }

    @Override
    public int actors() {
        return workers;
    }

    @Override
    public int shards() {
        return workers;
    }

    @Override
    public List<WorkerInfo> open(ActorSettings settings, JobControl control) {
        group = settings.group(workers).open();
        control.attach(group);
        who = group.workers();
        return who;
    }

    @Override
    public void load(List<byte[]> shards, byte[] validation) {
        group.callEach(TrainWorker::load, shards);
        if (validation != null) {
            group.callOne(0, TrainWorker::loadValidation, validation);
        }
    }

    @Override
    public void init(WorkerConfig config) {
        group.callAll(TrainWorker::init, config);
    }

    @Override
    public int stepsPerCall(int reportEvery) {
        return reportEvery;
    }

    @Override
    public StepChunk run(StepRange range) {
        List<WorkerReport> reports = group.callAll(TrainWorker::trainSteps, range);
        List<StepMetrics> steps = new ArrayList<>(range.count);
        for (int i = 0; i < range.count; i++) {
            steps.add(WorkerReport.merge(reports, i, range.epoch + 1, range.globalFirst + i + 1,
                    batchSize * workers, Double.NaN));
        }
        long[] hashes = reports.stream().mapToLong(r -> r.parameterHash).toArray();
        return new StepChunk(steps, List.of(),
                List.of(new StepChunk.ReplicaSet("the model", who, hashes)));
    }

    @Override
    public Evaluation evaluate() {
        return group.callOne(0, TrainWorker::evaluate);
    }

    @Override
    public List<ActorGroup<TrainWorker>> stages() {
        return List.of(group);
    }

    @Override
    public String layout() {
        return "1 stage";
    }

    @Override
    public void release() {
        group.callAll(TrainWorker::release);
    }
}

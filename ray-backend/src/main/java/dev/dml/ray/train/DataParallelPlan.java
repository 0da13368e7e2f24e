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
    private List<byte[]> shards;
    private byte[] validation;
    private WorkerConfig config;

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
        this.shards = shards;
        this.validation = validation;
        group.callEach(TrainWorker::load, shards);
        if (validation != null) {
            group.callOne(0, TrainWorker::loadValidation, validation);
        }
    }

    @Override
    public void init(WorkerConfig config) {
        this.config = config;
        group.callAll(TrainWorker::init, config);
    }

    @Override
    public int stepsPerCall(int reportEvery) {
        return reportEvery;
    }

    @Override
    public StepChunk run(StepRange range) {
        List<WorkerReport> reports = group.callAll(TrainWorker::trainSteps, range);
        int done = reports.get(0).steps(); // fewer than asked after a pre-emption notice
        List<StepMetrics> steps = new ArrayList<>(done);
        for (int i = 0; i < done; i++) {
            steps.add(WorkerReport.merge(reports, i, range.epoch + 1, range.globalFirst + i + 1,
                    batchSize * workers, Double.NaN));
        }
        long[] hashes = reports.stream().mapToLong(r -> r.parameterHash).toArray();
        return new StepChunk(steps, List.of(),
                List.of(new StepChunk.ReplicaSet("the model", who, hashes)),
                StepChunk.leaving(reports));
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

    @Override
    public List<Integer> probe(String why) {
        return group.probe(why, Recoveries.PROBE_WAIT);
    }

    @Override
    public void handOver(List<Integer> leaving, long step) {
        // Nothing to do: every rank took a snapshot where all stopped, and all hold the same.
    }

    @Override
    public List<WorkerInfo> replace(List<Integer> lost, JobControl control) {
        group = group.replace(lost);
        control.attach(group);
        who = group.workers();
        for (int r : lost) {
            group.callOne(r, TrainWorker::load, shards.get(r));
            if (r == 0 && validation != null) {
                group.callOne(0, TrainWorker::loadValidation, validation);
            }
            group.callOne(r, TrainWorker::initAlone, config);
        }
        return who;
    }

    @Override
    public long restoreFromPeers(List<Integer> replaced) {
        for (int r = 0; r < group.size(); r++) {
            if (!replaced.contains(r)) {
                SnapshotCopy s = group.callOne(r, TrainWorker::heldSnapshot, 0);
                if (!s.exists()) {
                    return -1;
                }
                group.callAll(TrainWorker::restore, s.state);
                return s.step;
            }
        }
        return -1; // every rank was lost
    }

    @Override
    public long progress() {
        return group.callAll(TrainWorker::progress).stream().mapToLong(Long::longValue).max()
                .orElse(-1);
    }
}

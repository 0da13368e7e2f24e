package dev.dml.ray.train.runner;

import dev.dml.options.StageBalance;
import dev.dml.Closeables;
import dev.dml.events.PipelineMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.ActorGroupBuilder;
import dev.dml.ray.collective.Gather;
import dev.dml.options.TrainOptions;
import dev.dml.options.TransportKind;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.device.WorkerReport;
import dev.dml.ray.train.worker.WorkerConfig;
import dev.dml.ray.train.staged.Partition;
import dev.dml.ray.train.staged.PipelineStep;
import dev.dml.ray.train.staged.StageHandOffs;
import dev.dml.ray.train.worker.Evaluation;
import dev.dml.ray.train.worker.SnapshotCopy;
import dev.dml.ray.train.worker.StepRange;
import dev.dml.ray.train.worker.TrainWorker;
import dev.dml.ray.train.worker.ValidationPass;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Model, pipeline and hybrid parallelism: the model split by layer into stages, one {@link
 * ActorGroup} of workers per stage with one worker per replica (so that a stage's group
 * all-reduces its replicas' gradients). Each step's micro-batches flow through the stages as
 * {@link PipelineStep} schedules them; validation rows flow through replica 0's stages the same
 * way, without gradients.
 */
final class StagedWorkers implements StrategyWorkers {

    private static final Logger LOG = LoggerFactory.getLogger(StagedWorkers.class);

    private final Strategy.Staged strategy;
    private final Duration timeout;
    private final List<ActorGroup<TrainWorker>> groups = new ArrayList<>();
    private final List<WorkerInfo> who = new ArrayList<>();
    private final List<WorkerConfig> stageConfigs = new ArrayList<>();
    private PipelineStep pipeline;
    private TransportKind transport;
    private StageHandOffs handOffs;
    private int validationRows;
    private List<byte[]> shards;
    private byte[] validation;
    private int[] split;

    StagedWorkers(Strategy.Staged strategy, Duration timeout) {
        this.strategy = strategy;
        this.timeout = timeout;
    }

    @Override
    public int actors() {
        return strategy.replicas() * strategy.stages();
    }

    @Override
    public int shards() {
        return strategy.replicas();
    }

    @Override
    public List<WorkerInfo> open(ActorSettings settings, JobControl control) {
        int d = strategy.replicas();
        int k = strategy.stages();
        List<ActorGroupBuilder<TrainWorker>> builders = new ArrayList<>();
        for (int s = 0; s < k; s++) {
            List<Integer> bundles = new ArrayList<>(); // a replica's stages side by side
            for (int r = 0; r < d; r++) {
                bundles.add(r * k + s);
            }
            builders.add(settings.groupInBundles(bundles));
        }
        for (ActorGroup<TrainWorker> g : ActorGroup.openAll(builders)) {
            control.attach(g);
            groups.add(g);
        }
        transport = settings.transport();
        handOffs = linkStages();
        return roster();
    }

    /** The workers by job rank: replica by replica, the stages of each in order. */
    private List<WorkerInfo> roster() {
        int d = strategy.replicas();
        int k = strategy.stages();
        who.clear();
        for (int r = 0; r < d; r++) {
            for (int s = 0; s < k; s++) {
                WorkerInfo w = groups.get(s).workers().get(r);
                who.add(w.withRank(r * k + s, d * k)
                        .withTransport(handOffs.describe(w.transport())));
            }
        }
        return List.copyOf(who);
    }

    @Override
    public void load(List<byte[]> shards, byte[] validation) {
        this.shards = shards;
        this.validation = validation;
        for (ActorGroup<TrainWorker> g : ends()) {
            g.callEach(TrainWorker::load, shards);
            if (validation != null) {
                validationRows = g.callOne(0, TrainWorker::loadValidation, validation);
            }
        }
    }

    @Override
    public void init(WorkerConfig config) {
        split = split(config);
        LOG.info("{}: {} with layers {} per stage", config.job, strategy, Arrays.toString(split));
        int from = 0;
        stageConfigs.clear();
        for (int s = 0; s < split.length; s++) {
            stageConfigs.add(config.forStage(s, from, from + split[s]));
            groups.get(s).callAll(TrainWorker::init, stageConfigs.get(s));
            from += split[s];
        }
        wire();
    }

    /** Connects the stages' actors, replica by replica, into the step's schedule. */
    private void wire() {
        pipeline = new PipelineStep(byReplica(), strategy.schedule(), strategy.microbatches(),
                timeout, handOffs, this::linkStages);
    }

    /** Links each replica's stages directly, where the transport allows it. */
    private StageHandOffs linkStages() {
        List<List<String>> nodes = new ArrayList<>();
        for (int r = 0; r < strategy.replicas(); r++) {
            List<String> stages = new ArrayList<>();
            for (ActorGroup<TrainWorker> g : groups) {
                stages.add(g.workers().get(r).nodeId());
            }
            nodes.add(stages);
        }
        return StageHandOffs.link(byReplica(), nodes, transport, timeout);
    }

    private List<List<ActorHandle<TrainWorker>>> byReplica() {
        List<List<ActorHandle<TrainWorker>>> byReplica = new ArrayList<>();
        for (int r = 0; r < strategy.replicas(); r++) {
            List<ActorHandle<TrainWorker>> stages = new ArrayList<>();
            for (ActorGroup<TrainWorker> g : groups) {
                stages.add(g.actor(r));
            }
            byReplica.add(stages);
        }
        return byReplica;
    }

    /** The layers of each stage: explicit, or balanced on costs measured by one worker. */
    private int[] split(WorkerConfig config) {
        int k = strategy.stages();
        int[] given = strategy.layersPerStage().orElse(null);
        if (given != null) {
            return given;
        }
        if (k == 1) {
            return new int[] {config.model.layerCount()};
        }
        boolean byTime = strategy.balance() == StageBalance.TIME;
        double[] costs = groups.get(0).callOne(0, TrainWorker::layerCosts, config, byTime);
        LOG.info("{}: layer costs {} ({})", config.job, Arrays.toString(costs),
                strategy.balance());
        return Partition.balance(costs, k);
    }

    @Override
    public int stepsPerCall(int reportEvery) {
        // over direct links each stage runs several steps in one call, and a stage starts the
        // next step's forwards while later stages still end this one; through object
        // references the driver schedules every micro-batch of every step
        return pipeline != null && pipeline.linked() ? reportEvery : 1;
    }

    @Override
    public StepChunk run(StepRange range) {
        if (range.snapshot) {
            snapshot(range.globalFirst);
        }
        long c0 = System.nanoTime();
        List<List<WorkerReport>> reps = pipeline.run(range);
        int n = reps.get(0).get(0).steps();
        double wall = (System.nanoTime() - c0) / 1e9 / n; // a step's share of the call
        int d = reps.size();
        int k = strategy.stages();
        List<WorkerReport> byRank = new ArrayList<>();
        reps.forEach(byRank::addAll);
        List<StepChunk.ReplicaSet> sets = new ArrayList<>();
        for (int s = 0; s < k; s++) {
            long[] hashes = new long[d];
            List<WorkerInfo> replicas = new ArrayList<>();
            for (int r = 0; r < d; r++) {
                hashes[r] = reps.get(r).get(s).parameterHash;
                replicas.add(who.get(r * k + s));
            }
            sets.add(new StepChunk.ReplicaSet("stage " + s, replicas, hashes));
        }
        List<StepMetrics> steps = new ArrayList<>();
        int batch = stageConfigs.get(0).options().get(TrainOptions.BATCH_SIZE); // per replica
        List<PipelineMetrics> pipelines = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long step = range.globalFirst + i + 1;
            steps.add(WorkerReport.merge(byRank, i, range.epoch + 1, step, batch * d, wall));
            pipelines.add(new PipelineMetrics(step, wall * 1e3, strategy.microbatches(),
                    WorkerReport.stageTimes(reps, i, n, wall)));
        }
        return new StepChunk(steps, pipelines, sets, StepChunk.leaving(byRank));
    }

    @Override
    public Evaluation evaluate() {
        int chunks = ValidationPass.chunks(stageConfigs.get(0).model, validationRows);
        List<ObjectRef<byte[]>> ends = new ArrayList<>();
        for (int c = 0; c < chunks; c++) {
            ObjectRef<byte[]> x = groups.get(0).actor(0)
                    .task(TrainWorker::evalForward, c, TrainWorker.NONE).remote();
            for (int s = 1; s < groups.size(); s++) {
                x = groups.get(s).actor(0).task(TrainWorker::evalForward, c, x).remote();
            }
            ends.add(x);
        }
        ActorGroup<TrainWorker> last = groups.get(groups.size() - 1);
        Gather.await(ends, Collections.nCopies(ends.size(), last.workers().get(0)),
                "evalForward", timeout);
        return last.callOne(0, TrainWorker::evaluation);
    }

    @Override
    public List<ActorGroup<TrainWorker>> stages() {
        return List.copyOf(groups);
    }

    @Override
    public String layout() {
        return "stages of " + Arrays.stream(split).mapToObj(Integer::toString)
                .collect(java.util.stream.Collectors.joining("+")) + " layers";
    }

    @Override
    public void release() {
        Closeables.closeAll(groups.stream()
                .map(g -> (AutoCloseable) () -> g.callAll(TrainWorker::release)).toList());
    }

    /**
     * Takes every worker's snapshot at {@code step}. Without replicas, where no other worker
     * holds a stage's state, the next stage's worker keeps a copy too (the last stage's goes
     * to the first): it moves worker to worker through Ray's object store.
     */
    private void snapshot(long step) {
        int k = groups.size();
        List<ObjectRef<Long>> taken = new ArrayList<>();
        List<ObjectRef<Boolean>> copied = new ArrayList<>();
        for (int s = 0; s < k; s++) {
            ActorGroup<TrainWorker> g = groups.get(s);
            for (int r = 0; r < g.size(); r++) {
                taken.add(g.actor(r).task(TrainWorker::snapshot, step).remote());
            }
            if (g.size() == 1 && k > 1) {
                ObjectRef<SnapshotCopy> copy = g.actor(0)
                        .task(TrainWorker::heldSnapshot, s).remote();
                copied.add(groups.get((s + 1) % k).actor(0).task(TrainWorker::keep, copy)
                        .remote());
            }
        }
        Gather.await(taken, List.of(), "snapshot", timeout);
        Gather.await(copied, List.of(), "keeping a snapshot copy", timeout);
    }

    @Override
    public List<Integer> probe(String why) {
        int k = groups.size();
        List<Integer> lost = new ArrayList<>();
        for (int s = 0; s < k; s++) {
            for (int r : groups.get(s).probe(why, Recoveries.PROBE_WAIT)) {
                lost.add(r * k + s);
            }
        }
        Collections.sort(lost);
        return lost;
    }

    @Override
    public void handOver(List<Integer> leaving, long step) {
        snapshot(step); // with the copies that outlive the leaving workers
    }

    @Override
    public List<WorkerInfo> replace(List<Integer> lost, JobControl control) {
        int k = groups.size();
        for (int s = 0; s < k; s++) {
            final int stage = s;
            List<Integer> ranks = lost.stream().filter(w -> w % k == stage).map(w -> w / k)
                    .toList();
            if (ranks.isEmpty()) {
                continue;
            }
            ActorGroup<TrainWorker> g = groups.get(s).replace(ranks);
            groups.set(s, g);
            control.attach(g);
            for (int r : ranks) {
                if (s == 0 || s == k - 1) {
                    g.callOne(r, TrainWorker::load, shards.get(r));
                    if (r == 0 && validation != null) {
                        g.callOne(0, TrainWorker::loadValidation, validation);
                    }
                }
                g.callOne(r, TrainWorker::initAlone, stageConfigs.get(s));
            }
        }
        handOffs = linkStages();
        wire();
        return roster();
    }

    /**
     * Restores every stage from the newest step at which each stage's state survives: in its
     * own workers or in the copy its buddy keeps. Each keeps two snapshots a stage, so a loss
     * in the middle of a snapshot still leaves the one before it on every stage.
     */
    @Override
    public long restoreFromPeers(List<Integer> replaced) {
        int k = groups.size();
        List<Map<Long, Integer>> holders = new ArrayList<>(); // by stage: step -> worker
        Set<Long> common = null;
        for (int s = 0; s < k; s++) {
            List<Integer> candidates = new ArrayList<>();
            for (int r = 0; r < groups.get(s).size(); r++) {
                candidates.add(r * k + s);
            }
            candidates.add((s + 1) % k); // the buddy stage's first worker
            Map<Long, Integer> at = new HashMap<>();
            for (int w : candidates) {
                if (!replaced.contains(w)) {
                    for (long step : groups.get(w % k).callOne(w / k, TrainWorker::snapshotSteps,
                            s)) {
                        at.putIfAbsent(step, w);
                    }
                }
            }
            holders.add(at);
            common = common == null ? new HashSet<>(at.keySet()) : common;
            common.retainAll(at.keySet());
        }
        if (common == null || common.isEmpty()) {
            return -1; // some stage's state is gone
        }
        long step = Collections.max(common);
        for (int s = 0; s < k; s++) {
            int w = holders.get(s).get(step);
            SnapshotCopy c = groups.get(w % k).callOne(w / k, TrainWorker::heldSnapshotAt, s,
                    step);
            groups.get(s).callAll(TrainWorker::restore, c.state);
        }
        return step;
    }

    @Override
    public long progress() {
        return -1; // the driver runs one step per call: it knows
    }

    /** The first and the last stage's groups: those that read rows. */
    private List<ActorGroup<TrainWorker>> ends() {
        return groups.size() == 1 ? groups : List.of(groups.get(0), groups.get(groups.size() - 1));
    }
}

package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.events.JobNotice;
import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.CollectiveException;
import dev.dml.ray.collective.Slot;
import dev.dml.options.TrainOptions;
import dev.dml.options.TransportKind;
import dev.dml.ray.ps.ServerGroup;
import dev.dml.ray.train.device.WorkerReport;
import dev.dml.ray.train.recovery.ElasticRoom;
import dev.dml.ray.train.recovery.WorkerRoom;
import dev.dml.ray.train.worker.WorkerConfig;
import dev.dml.ray.train.worker.AsyncStep;
import dev.dml.ray.train.worker.Evaluation;
import dev.dml.ray.train.worker.SnapshotCopy;
import dev.dml.ray.train.worker.StepRange;
import dev.dml.ray.train.worker.TrainWorker;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data parallelism: every rank holds the whole model and trains on its shards, averaging
 * gradients with its peers after every step, a few steps per call.
 *
 * <p>The rows are split into as many shards as the job's most workers. An elastic job ({@code
 * --workers MIN:MAX}) may run fewer: shard {@code s} then goes to rank {@code s mod W}, and a
 * step still trains a batch of every shard, so the size never changes what the job computes.
 * It starts with what its placement holds, shrinks when lost workers cannot be replaced in
 * {@link #REPLACE_WAIT} and at least MIN remain, and grows ({@link #grow}) when nodes join.
 */
final class DataParallelWorkers implements StrategyWorkers {

    private static final Logger LOG = LoggerFactory.getLogger(DataParallelWorkers.class);
    /** How long an elastic job waits for a replacement before it shrinks instead. */
    static final java.time.Duration REPLACE_WAIT = java.time.Duration.ofSeconds(20);
    /** How long new workers of a growing job may take to start. */
    static final java.time.Duration GROW_WAIT = java.time.Duration.ofSeconds(30);

    private final int fewest;
    private final int shardCount;
    private final ElasticRoom room;
    private ActorSettings settings;
    private ActorGroup<TrainWorker> group;
    private List<WorkerInfo> who;
    private List<byte[]> shards;
    private byte[] validation;
    private WorkerConfig config;
    /** The ranks the last {@link #replace} started anew; they hold no snapshot. */
    private List<Integer> fresh = List.of();
    /** Parameter servers of an asynchronous job ({@code --ps}); 0 in a synchronous one. */
    private int serverCount;
    /** The staleness bound S of {@code --sync ssp:S}, or -1 for {@code async}. */
    private int bound = -1;
    private ServerGroup servers;

    /**
     * A plan.
     *
     * @param fewest the fewest workers (MIN), equal to {@code shards} unless elastic
     * @param shards the shards: the most workers (MAX)
     * @param room how many workers the cluster could hold, read to start and to grow
     */
    DataParallelWorkers(int fewest, int shards, WorkerRoom room) {
        this.fewest = fewest;
        this.shardCount = shards;
        this.room = new ElasticRoom(room);
    }

    /**
     * Makes the job asynchronous: its workers push their updates to {@code count} parameter
     * servers and train on what the servers send back ({@link AsyncStep}).
     *
     * @param count the servers, at least 1
     * @param staleness the bound S of {@code ssp:S}, or -1 for {@code async}
     * @return this plan
     */
    DataParallelWorkers withServers(int count, int staleness) {
        this.serverCount = count;
        this.bound = staleness;
        return this;
    }

    /**
     * The workers as the cell shows their links: an asynchronous job's workers reach the
     * servers through Ray's actor calls, whatever links they have among themselves.
     */
    private List<WorkerInfo> described(List<WorkerInfo> workers) {
        if (serverCount == 0) {
            return workers;
        }
        String how = (bound < 0 ? "async" : "ssp:" + bound) + " via " + serverCount
                + (serverCount == 1 ? " parameter server" : " parameter servers")
                + " (" + servers.transport() + ")";
        return workers.stream().map(w -> w.withTransport(how)).toList();
    }

    private boolean elastic() {
        return fewest < shardCount;
    }

    @Override
    public int actors() {
        return shardCount;
    }

    @Override
    public int fewestActors() {
        return fewest;
    }

    @Override
    public int shards() {
        return shardCount;
    }

    @Override
    public List<WorkerInfo> open(ActorSettings settings, JobControl control) {
        this.settings = settings;
        int roomSeen = room.open();
        int size = settings.placement() != null ? settings.placement().size()
                : Math.max(fewest, Math.min(shardCount, roomSeen));
        group = settings.group(size).open();
        control.attach(group);
        if (serverCount > 0) {
            // as many clients as workers at most; each seed names those of the node layout
            servers = ServerGroup.start(serverCount, group.size(), bound, settings.timeout(),
                    settings.jvmOptions(), settings.transport() == TransportKind.TCP);
            control.attach(servers);
        }
        who = described(group.workers());
        return who;
    }

    @Override
    public void load(List<byte[]> shards, byte[] validation) {
        this.shards = shards;
        this.validation = validation;
        assign(false);
        if (validation != null) {
            group.callOne(0, TrainWorker::loadValidation, validation);
        }
    }

    /** Gives every rank its shards: {@code s} to rank {@code s mod W} (or only the fresh). */
    private void assign(boolean freshOnly) {
        int w = group.size();
        if (!freshOnly) {
            group.callEach(TrainWorker::load, shards.subList(0, w));
        }
        for (int r = 0; r < w; r++) {
            if (freshOnly && !fresh.contains(r)) {
                continue;
            }
            if (freshOnly) {
                group.callOne(r, TrainWorker::load, shards.get(r));
            }
            for (int s = r + w; s < shardCount; s += w) {
                group.callOne(r, TrainWorker::addShard, shards.get(s));
            }
        }
    }

    @Override
    public void init(WorkerConfig config) {
        this.config = config;
        group.callAll(TrainWorker::init, config);
        if (servers != null) {
            group.callAll(TrainWorker::connectServers, servers);
        }
    }

    @Override
    public boolean gathersState() {
        return config.options().get(TrainOptions.SHARD_OPTIMIZER);
    }

    @Override
    public int stepsPerCall(int reportEvery) {
        return reportEvery;
    }

    /**
     * A lone worker of a fixed size: it takes no snapshot, so one sent ahead can never hold
     * state the driver has not recorded. (With peers, a call sent ahead could snapshot a step
     * whose report a failure then lost.)
     */
    @Override
    public boolean sendsAhead() {
        return servers == null && !elastic() && group.size() == 1;
    }

    @Override
    public Sent send(StepRange range) {
        if (servers != null) {
            return () -> run(range);
        }
        java.util.function.Supplier<List<WorkerReport>> sent =
                group.sendAll(TrainWorker::trainSteps, range);
        return () -> {
            List<WorkerReport> reports = sent.get();
            return chunk(range, reports,
                    reports.stream().mapToLong(r -> r.parameterHash).toArray());
        };
    }

    @Override
    public StepChunk run(StepRange range) {
        if (servers == null) {
            return send(range).await();
        }
        // seeded from rank 0 before every run: a recovery's restored state reaches them
        group.callOne(0, TrainWorker::seedServers, range.globalFirst);
        List<WorkerReport> reports = group.callAll(TrainWorker::trainStepsAsync, range);
        long[] hashes = group.callAll(TrainWorker::pullParameters).stream()
                .mapToLong(Long::longValue).toArray();
        return chunk(range, reports, hashes);
    }

    private StepChunk chunk(StepRange range, List<WorkerReport> reports, long[] hashes) {
        int done = reports.get(0).steps(); // fewer than asked after a pre-emption notice
        List<StepMetrics> steps = new ArrayList<>(done);
        int rows = config.options().get(TrainOptions.BATCH_SIZE) // per shard, all it adds up
                * config.options().get(TrainOptions.ACCUMULATE);
        for (int i = 0; i < done; i++) {
            steps.add(WorkerReport.merge(reports, i, range.epoch + 1, range.globalFirst + i + 1,
                    rows * shardCount, Double.NaN));
        }
        return new StepChunk(steps, List.of(),
                List.of(new StepChunk.ReplicaSet("the model", who, hashes)),
                StepChunk.leaving(reports));
    }

    @Override
    public Resize grow(JobControl control, long step, Consumer<JobNotice> notices) {
        if (!elastic()) {
            return null;
        }
        int before = group.size();
        List<Slot> where = room.next(before, shardCount, settings.placement(), GROW_WAIT);
        if (where.isEmpty()) {
            return null;
        }
        byte[] state = StageStates.save(List.of(group), gathersState()).get(0);
        try {
            group = group.grow(where, GROW_WAIT); // on a failure the old group joins again
        } catch (CollectiveException e) {
            notices.accept(room.failed(where, e, group.size(), step));
            return null;
        }
        control.attach(group);
        fresh = java.util.stream.IntStream.range(before, group.size()).boxed().toList();
        try {
            assign(false);
            for (int r : fresh) {
                group.callOne(r, TrainWorker::initAlone, config);
                if (!gathersState()) {
                    group.callOne(r, TrainWorker::restore, state);
                }
            }
            if (gathersState()) { // every rank's range moved: each re-shards from the state
                group.callAll(TrainWorker::restore, state);
            }
        } catch (RuntimeException e) {
            // a new worker failed after it joined: drop the new ones; the others hold the state
            group = group.shrink(fresh);
            control.attach(group);
            fresh = List.of();
            assign(false);
            if (gathersState()) { // some ranks may have re-sharded for the larger group
                group.callAll(TrainWorker::restore, state);
            }
            notices.accept(room.failed(where, e, group.size(), step));
            return null;
        }
        room.grew(where);
        who = group.workers();
        return new Resize(step, before, group.size(), "grew onto room that joined the cluster",
                who);
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
        try {
            group.callAll(TrainWorker::release);
        } finally {
            if (servers != null) {
                servers.close();
            }
        }
    }

    @Override
    public List<Integer> probe(String why) {
        if (servers != null) {
            servers.abort(why); // no worker waits at a gate for one that is gone
        }
        return group.probe(why, Recoveries.PROBE_WAIT);
    }

    @Override
    public void handOver(List<Integer> leaving, long step) {
        // Nothing to do: every rank took a snapshot where all stopped, and all hold the same.
    }

    @Override
    public List<WorkerInfo> replace(List<Integer> lost, JobControl control) {
        try {
            group = elastic() ? group.replace(lost, REPLACE_WAIT) : group.replace(lost);
        } catch (CollectiveException noRoom) {
            if (!elastic()) {
                throw noRoom;
            }
            return shrink(lost, control, noRoom);
        }
        control.attach(group);
        who = described(group.workers());
        fresh = List.copyOf(lost);
        assign(true);
        if (lost.contains(0) && validation != null) {
            group.callOne(0, TrainWorker::loadValidation, validation);
        }
        for (int r : lost) { // the others' server links follow the new node layout (AsyncStep)
            group.callOne(r, TrainWorker::initAlone, config);
            if (servers != null) {
                group.callOne(r, TrainWorker::connectServers, servers);
            }
        }
        return who;
    }

    /** Goes on without the lost workers, when no node has room for their replacements. */
    private List<WorkerInfo> shrink(List<Integer> lost, JobControl control,
            CollectiveException noRoom) {
        int left = group.size() - lost.size();
        if (left < fewest) {
            throw new DmlException(lost.size() + " lost worker(s) could not be replaced within "
                    + REPLACE_WAIT.toSeconds() + " s, and the " + left + " left are fewer than"
                    + " the job's least, {workers=" + fewest + ":" + shardCount + "}.",
                    "Add nodes to the cluster, or lower the least of {workers}.", noRoom);
        }
        lost.forEach(r -> room.free(group.slot(r)));
        group = group.shrink(lost);
        control.attach(group);
        who = group.workers();
        fresh = List.of(); // every survivor holds the snapshots
        assign(false);
        if (validation != null) {
            group.callOne(0, TrainWorker::loadValidation, validation);
        }
        LOG.warn("shrank to {} workers: no room to replace {}", left, lost);
        return who;
    }

    @Override
    public long restoreFromPeers(List<Integer> replaced) {
        for (int r = 0; r < group.size(); r++) {
            if (!fresh.contains(r)) {
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

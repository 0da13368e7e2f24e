package dev.dml.ray.train.worker;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.Closeables;
import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.OptimizerShard;
import dev.dml.ray.model.StepClock;
import dev.dml.ray.model.Precision;
import dev.dml.ray.ps.ServerGroup;
import dev.dml.ray.train.device.ProcessSampler;
import dev.dml.ray.train.device.WorkerDevice;
import dev.dml.ray.train.device.WorkerReport;
import dev.dml.ray.train.recovery.StageFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * One worker of a training job, a Ray actor: a {@link ModelStage} (the whole model in a
 * data-parallel job, some layers in a staged one), its rows, and its peers (the job's other
 * ranks, or the stage's replicas). It is composed, not stacked: the collectives come from
 * {@link CollectiveWorker}; the steps from one {@link StepStrategy} per strategy ({@link
 * DataParallelStep}, {@link AsyncStep}, {@link StageStep}); snapshots and pre-emption from
 * {@link WorkerRecovery}; the device and process samples from {@link WorkerDevice} and {@link
 * ProcessSampler}. The methods here are the tasks the driver calls; each hands on to a part.
 *
 * <p>The driver calls {@link #load} and {@link #loadValidation} (the Arrow IPC bytes of its
 * rows, decoded once), {@link #init} (the model; rank 0's initial parameters are broadcast so
 * all start identical), optionally {@link #restore}, then steps: {@link #trainSteps} or {@link
 * #trainStepsAsync} (data parallelism), {@link #runStage}, or {@link #forward}, {@link
 * #backward} and {@link #endStep} as the driver's schedule submits them (model and pipeline
 * parallelism). Validation runs through the same stages without gradients ({@link #evaluate},
 * {@link #evalForward}, {@link #evaluation}); checkpoints and results take its state.
 */
public class TrainWorker extends CollectiveWorker {

    /** What a task returns or takes where there is no tensor: Ray turns an empty array null. */
    public static final byte[] NONE = {0};

    private ShardStore data;
    private ModelStage model;
    private WorkerConfig config;
    private final ValidationPass validation = new ValidationPass();
    private final WorkerRecovery recovery = new WorkerRecovery();
    private final WorkerDevice device = new WorkerDevice();
    private final ProcessSampler sampler = new ProcessSampler(device::gpu);
    private DataParallelStep sync;
    /** The steps of an asynchronous job; null in a synchronous one. */
    private AsyncStep async;
    private final StageStep stage = new StageStep(this);
    /** Where the last {@link #trainSteps} call ended whole, not stopped; -1 after anything else. */
    private long lastEnd = -1;

    /** Creates a worker; Ray calls it. */
    public TrainWorker() {}

    /** Picks the device from the GPUs Ray assigned ({@code --gpus-per-worker}), before all. */
    public String selectDevice(double gpus) {
        return device.select(gpus).toString();
    }

    /** Decodes this worker's training rows (Arrow IPC bytes), once; returns their count. */
    public int load(byte[] ipc) {
        sync().dropShards();
        return store().loadTrain(ipc);
    }

    /** Decodes another shard to train beside {@link #load}'s (elastic, fewer ranks than shards). */
    public int addShard(byte[] ipc) {
        return sync().addShard(ipc, "train/" + rank());
    }

    /** Decodes the validation rows (rank 0, or replica 0's first and last stages). */
    public int loadValidation(byte[] ipc) {
        return store().loadValidation(ipc);
    }

    /**
     * Measures what each layer of the whole model costs, for an automatic split: its parameter
     * count, or (with {@code byTime}) its forward and backward time on one micro-batch.
     */
    public double[] layerCosts(WorkerConfig cfg, boolean byTime) {
        try (ModelStage all = ModelStage.openWhole(cfg.model, cfg.optimizer,
                cfg.job + "/costs"); NDArray x = byTime ? store().train().features()
                        .get(new NDIndex("0:{}", cfg.options().get(TrainOptions.BATCH_SIZE)
                                / cfg.microbatches)) : null) {
            return all.layerCosts(x, 5);
        }
    }

    /** Builds this worker's layers; every peer starts from rank 0's parameters (a broadcast). */
    public int init(WorkerConfig cfg) {
        build(cfg);
        float[] mine = rank() == 0 ? model.parameters() : new float[0];
        model.setParameters(broadcast(mine));
        return model.parameterCount();
    }

    /** Builds the layers without the broadcast: a replacement gets its state from restore. */
    public int initAlone(WorkerConfig cfg) {
        build(cfg);
        return model.parameterCount();
    }

    private void build(WorkerConfig cfg) {
        this.config = cfg;
        lastEnd = -1;
        Closeables.closeAll(model);
        model = null;
        model = ModelStage.open(cfg.model, cfg.modelOptimizer(), cfg.fromLayer, cfg.toLayer,
                cfg.job + "/" + cfg.stage + "/" + rank(),
                device.select(cfg.options().get(TrainOptions.GPUS_PER_WORKER)),
                Precision.of(cfg.options().get(TrainOptions.PRECISION)));
        if ((model.isFirst() || model.isLast()) && (data == null || !data.hasTrain())) {
            throw new DmlException("Rank " + rank() + " of stage " + cfg.stage + " has no shard.",
                    "The driver loads shards into first and last stages before init.");
        }
        if (cfg.options().get(TrainOptions.SHARD_OPTIMIZER)) {
            sync().shardOptimizer(model, cfg);
        }
        recovery.enterJob();
        sampler.sample();
        stage.restart(model);
    }

    /** Loads a {@link #saveState} state; returns a hash of the parameters, equal on replicas. */
    public long restore(byte[] state) {
        if (config.options().get(TrainOptions.SHARD_OPTIMIZER)) {
            sync().shardOptimizer(model(), config); // this rank's ranges in its group now
        }
        model().loadState(state);
        lastEnd = -1; // a call sent ahead before this restore must not run on its state
        stage.restart(model); // a step cut short by a failure starts over
        return hash(model.parameters());
    }

    /** The model's parameters and optimizer state, for a checkpoint. */
    public byte[] saveState() {
        return model().saveState();
    }

    /**
     * The state for the driver, where every rank is called at once ({@link
     * StrategyWorkers#gathersState}): rank 0's, gathered from every rank; the others return {@link
     * #NONE}.
     */
    public byte[] stageState() {
        byte[] s = saveState();
        return rank() == 0 ? s : NONE;
    }

    /**
     * Writes the state into {@code file}, in the shared checkpoint folder; where every rank is
     * called at once, only rank 0 writes, and the others return an empty record.
     */
    public StageFile saveStateTo(String file) {
        byte[] s = saveState();
        return config.options().get(TrainOptions.SHARD_OPTIMIZER) && rank() != 0
                ? new StageFile(file, 0, 0)
                : StageFile.write(Path.of(file), s);
    }

    /** Loads the state a stage's rank 0 wrote into the shared folder; see {@link #restore}. */
    public long restoreFrom(StageFile file) {
        return restore(file.read(Path.of(file.name())));
    }

    /** Tells whether this worker's node can read {@code path}: is a shared folder shared? */
    public boolean sees(String path) {
        return Files.isReadable(Path.of(path));
    }

    /** Snapshots the state now, after {@code step} steps; returns its size in bytes. */
    public long snapshot(long step) {
        return recovery.snapshot(config.stage, step, saveState());
    }

    /** Keeps a copy of another stage's snapshot, in case that stage's workers are lost. */
    public boolean keep(SnapshotCopy copy) {
        recovery.keep(copy);
        return true;
    }

    /** The newest snapshot this worker holds of a stage, or {@link SnapshotCopy#NONE}. */
    public SnapshotCopy heldSnapshot(int stage) {
        return recovery.held(stage);
    }

    /** The steps at which this worker holds a snapshot of a stage, oldest first. */
    public long[] snapshotSteps(int stage) {
        return recovery.steps(stage);
    }

    /** This worker's snapshot of a stage at a step, or {@link SnapshotCopy#NONE}. */
    public SnapshotCopy heldSnapshotAt(int stage, long step) {
        return recovery.heldAt(stage, step);
    }

    /** Whether this worker got a pre-emption notice. */
    @Override
    public boolean leaving() {
        return recovery.leaving();
    }

    /**
     * Runs a range of data-parallel steps; every rank must be called with the same range. After
     * a pre-emption notice on any rank, every rank stops after the same step and takes a
     * snapshot, so that nothing is redone.
     *
     * @return per-step timings and losses (fewer than asked after a notice), a process sample
     */
    public WorkerReport trainSteps(StepRange range) {
        ModelStage m = model();
        if (range.ahead && lastEnd != range.globalFirst) {
            // sent before the previous call's report: that call stopped early or failed
            return StepsDone.NONE.report(0, sampler.sample(), leaving());
        }
        lastEnd = -1; // until this call returns whole
        // A rank's snapshot and hash serve its peers: a lone worker's die with it, and it has
        // no replica to agree with, so it skips both (for a large model, tens of MB a call).
        boolean peers = worldSize() > 1;
        if (range.snapshot && peers) {
            snapshot(range.globalFirst);
        }
        long[] clock = m.clock().totals();
        StepsDone done = sync().run(job(), range);
        if (done.stopped()) {
            snapshot(range.globalFirst + done.steps());
        }
        lastEnd = done.stopped() ? -1 : range.globalFirst + done.steps();
        return done.report(peers ? hash(m.parameters()) : 0,
                sampler.sample().withOptimizerStateBytes(OptimizerShard.stateBytes(m))
                        .withGradientBufferBytes(sync().gradientBufferBytes())
                        .withStepPhases(StepClock.perStep(clock, m.clock().totals(),
                                done.steps())), leaving());
    }

    /** Returns the steps this rank completed over the job (data parallelism), or -1. */
    public long progress() {
        return async != null ? async.completed() : sync == null ? -1 : sync.completed();
    }

    /** Opens this rank's link to the job's parameter servers ({@code --sync async|ssp:S}). */
    public boolean connectServers(ServerGroup servers) {
        Closeables.closeAll(async);
        async = new AsyncStep(servers, model(), this);
        return true;
    }

    /** Seeds the parameter servers with this replica (rank 0, before each run of steps). */
    public boolean seedServers(long step) {
        async.seed(model(), step);
        return true;
    }

    /** Runs a range of asynchronous steps through the parameter servers; see AsyncStep. */
    public WorkerReport trainStepsAsync(StepRange range) {
        if (range.snapshot) {
            snapshot(range.globalFirst);
        }
        return async.run(job(), range).report(0, sampler.sample(), leaving());
    }

    /** Takes the servers' parameters after a run; returns their hash, equal on every rank. */
    public long pullParameters() {
        async.pull(model());
        return hash(model.parameters());
    }

    /** Opens this stage's end of its replica's direct links; returns {@code host:port}. */
    public String listenStages(long token) {
        return stage.listen(token);
    }

    /** Connects this stage to its neighbours, whose {@link #listenStages} addresses these are. */
    public boolean linkStages(int stage, ArrayList<String> endpoints, ArrayList<String> nodes,
            long token, long timeoutMillis) {
        this.stage.connect(stage, endpoints, nodes, token, Duration.ofMillis(timeoutMillis));
        return true;
    }

    /** Runs staged steps here, this stage's schedule {@code ops} over its direct links. */
    public WorkerReport runStage(StepRange range, int[] ops) {
        return stageReport(stage.schedule(ops).run(job(), range));
    }

    /**
     * Runs a micro-batch forward on a stage (a first stage reads its features; the last also
     * runs the loss and the backward, and returns its input's gradient).
     *
     * @param microbatch the micro-batch's index over the job (step {@code s} from 0 has {@code
     *     s*M .. s*M+M-1})
     * @param activation the previous stage's output ({@link #NONE} on a first stage)
     * @return the next stage's activation, or the last stage's gradient ({@link #NONE} if none)
     */
    public byte[] forward(int microbatch, byte[] activation) {
        return stage.forward(job(), microbatch, activation);
    }

    /** Runs a micro-batch backward with the next stage's gradient; returns its input's. */
    public byte[] backward(int microbatch, byte[] gradient) {
        return stage.backward(job(), microbatch, gradient);
    }

    /** Ends a staged step: the replicas' all-reduce and the optimizer step. */
    public WorkerReport endStep(long globalStep) {
        return stageReport(stage.end(job(), globalStep));
    }

    private WorkerReport stageReport(StepsDone done) {
        return done.report(hash(model.parameters()), sampler.sample(), leaving());
    }

    /** Scores the validation rows with the whole model: loss, accuracy and AUC. */
    public Evaluation evaluate() {
        int chunks = ValidationPass.chunks(config.model, store().validation().rows());
        for (int chunk = 0; chunk < chunks; chunk++) {
            evalForward(chunk, NONE);
        }
        return evaluation();
    }

    /**
     * Runs a chunk of validation rows ({@link ValidationPass#chunkRows} of them) through this
     * stage without gradients; the last stage scores it. Returns the next stage's activation.
     */
    public byte[] evalForward(int chunk, byte[] activation) {
        ModelStage m = model();
        return validation.forward(m, config.model, m.isFirst() || m.isLast()
                ? store().validation() : null, chunk, activation);
    }

    /** The scores of the chunks the last stage saw since the previous call. */
    public Evaluation evaluation() {
        return validation.take();
    }

    /** The model's parameters as little-endian float32 bytes: bytes cross Ray fast, floats not. */
    public byte[] parameterBytes() {
        float[] p = model().parameters();
        ByteBuffer b = ByteBuffer.allocate(p.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(p);
        return b.array();
    }

    /**
     * Frees the model, the data and their memory; the driver calls it before it kills the
     * actors, which matters in LOCAL mode where actors outlive the job.
     */
    public boolean release() {
        recovery.leaveJob();
        try {
            Closeables.closeAll(stage, model, data, device, sync, async);
        } finally {
            model = null;
            data = null;
            sync = null;
            async = null;
        }
        return true;
    }

    private WorkerJob job() {
        return new WorkerJob(model(), store(), config);
    }

    private DataParallelStep sync() {
        if (sync == null) {
            sync = new DataParallelStep(this);
        }
        return sync;
    }

    private ShardStore store() {
        if (data == null) {
            data = new ShardStore("train/" + rank());
        }
        return data;
    }

    private ModelStage model() {
        if (model == null) {
            throw new DmlException("Rank " + rank() + " has no model yet.",
                    "The driver calls init before training.");
        }
        return model;
    }

    private static long hash(float[] p) {
        return Arrays.hashCode(p);
    }
}

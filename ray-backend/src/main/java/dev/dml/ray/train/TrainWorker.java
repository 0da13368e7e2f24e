package dev.dml.ray.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.Closeables;
import dev.dml.DmlException;
import dev.dml.ray.collective.CollectiveStats;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.model.MicroBatchGraph;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.Precision;
import dev.dml.ray.ps.ServerGroup;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * One worker of a training job, a Ray actor: it holds a {@link ModelStage} (the whole model in a
 * data-parallel job, some layers in a staged one), its data, and its peers, which are the
 * job's other ranks or the stage's replicas.
 *
 * <p>The driver calls {@link #load} and {@link #loadValidation} (the Arrow IPC bytes of its
 * rows, decoded once), {@link #init} (the model; rank 0's initial parameters are broadcast so
 * all start identical), optionally {@link #restore}, then steps:
 *
 * <ul>
 *   <li>data parallelism: {@link #trainSteps} runs a range of steps here, each forward and
 *       backward on the local batch, an all-reduce (average) of the gradients with every peer,
 *       and the optimizer step. Step {@code t} of an epoch trains on rows {@code [t*B, (t+1)*B)}
 *       of the shard in the epoch's reading order, so the averaged gradient equals that of the
 *       global batch;
 *   <li>model and pipeline parallelism: {@link #forward} and {@link #backward} per micro-batch,
 *       then {@link #endStep}, which averages the gradients with the stage's replicas and steps;
 *       over direct links each stage runs them itself ({@link StagedWorker#runStage}), else as
 *       the driver's schedule submits them with the neighbouring stages' bytes.
 * </ul>
 *
 * <p>Validation runs through the same stages without gradients ({@link #evaluate}, {@link
 * #evalForward}, {@link #evaluation}); checkpoints and results take the state it gives.
 */
public class TrainWorker extends StagedWorker {

    /** What a task returns or takes where there is no tensor: Ray turns an empty array null. */
    static final byte[] NONE = {0};

    private ShardStore data;
    private ModelStage model;
    private WorkerConfig config;
    private final ValidationPass validation = new ValidationPass();
    private DataParallelSteps steps;
    /** The steps of an asynchronous job; null in a synchronous one. */
    private AsyncSteps async;
    private final StageStep step = new StageStep();
    private final WorkerDevice device = new WorkerDevice();
    private final ProcessSampler sampler = new ProcessSampler(device::gpu);
    private final MicrobatchRows microbatchRows = new MicrobatchRows();
    /** Where the last {@link #trainSteps} call ended whole, not stopped; -1 after anything else. */
    private long lastEnd = -1;

    /** Creates a worker; Ray calls it. */
    public TrainWorker() {}

    /**
     * Picks the device this worker trains on from the GPUs Ray assigned it, before anything
     * else: a job that asked for GPUs it cannot use fails here, before any step.
     *
     * @param gpus {@code --gpus-per-worker}
     * @return the device, e.g. {@code gpu(0)} or {@code cpu()}
     */
    public String selectDevice(double gpus) {
        return device.select(gpus).toString();
    }

    /**
     * Decodes this worker's training rows, once.
     *
     * @param ipc the shard, Arrow IPC bytes
     * @return its row count
     */
    public int load(byte[] ipc) {
        dataParallel().dropShards();
        return store().loadTrain(ipc);
    }

    /** Decodes one more shard to train beside {@link #load}'s (elastic, fewer ranks than shards). */
    public int addShard(byte[] ipc) {
        return dataParallel().addShard(ipc, "train/" + rank());
    }

    /**
     * Decodes the validation rows (the worker that scores them: rank 0, or replica 0's first
     * and last stages).
     *
     * @param ipc the rows, Arrow IPC bytes
     * @return their count
     */
    public int loadValidation(byte[] ipc) {
        return store().loadValidation(ipc);
    }

    /**
     * Measures what each layer of the whole model costs, for an automatic split: its parameter
     * count, or (with {@code byTime}) its forward and backward time on one micro-batch of this
     * worker's shard.
     *
     * @param cfg the job's config
     * @param byTime time the layers instead of counting their parameters
     * @return one cost per layer
     */
    public double[] layerCosts(WorkerConfig cfg, boolean byTime) {
        try (ModelStage all = ModelStage.openWhole(cfg.model, cfg.optimizer,
                cfg.job + "/costs"); NDArray x = byTime ? store().train().features()
                        .get(new NDIndex("0:{}", cfg.microbatchRows())) : null) {
            return all.layerCosts(x, 5);
        }
    }

    /**
     * Builds the model's layers this worker holds, and makes every peer start from rank 0's
     * parameters (a broadcast).
     *
     * @param cfg the worker's config
     * @return its parameter count
     */
    public int init(WorkerConfig cfg) {
        build(cfg);
        float[] mine = rank() == 0 ? model.parameters() : new float[0];
        model.setParameters(broadcast(mine));
        return model.parameterCount();
    }

    /**
     * Builds the model's layers without the broadcast: a replacement worker, whose peers are
     * mid-job, gets its state from {@link #restore} next.
     *
     * @param cfg the worker's config
     * @return its parameter count
     */
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
                cfg.job + "/" + cfg.stage + "/" + rank(), device.select(cfg.gpus),
                Precision.ofOption(cfg.precision));
        if ((model.isFirst() || model.isLast()) && (data == null || !data.hasTrain())) {
            throw new DmlException("Rank " + rank() + " of stage " + cfg.stage + " has no shard.",
                    "The driver loads shards into first and last stages before init.");
        }
        preemption.enterJob();
        sampler.sample();
        step.begin(model);
    }

    /**
     * Loads a checkpoint's state (parameters and optimizer state) into the model.
     *
     * @param state the bytes {@link #saveState()} returned
     * @return a hash of the parameters, equal on every replica
     */
    @Override
    public long restore(byte[] state) {
        model().loadState(state);
        lastEnd = -1; // a call sent ahead before this restore must not run on its state
        step.begin(model); // a step cut short by a failure starts over
        return hash(model.parameters());
    }

    /**
     * Saves the model's parameters and optimizer state, for a checkpoint.
     *
     * @return the state bytes
     */
    public byte[] saveState() {
        return model().saveState();
    }

    @Override
    int stage() {
        return config.stage;
    }

    @Override
    int microbatches() {
        return config.microbatches;
    }

    @Override
    void restartStep() {
        step.begin(model()); // the step starts over once the stages are linked again
    }

    @Override
    byte[] currentState() {
        return saveState();
    }

    /**
     * Runs a range of data-parallel steps; every rank must be called with the same range. After
     * a pre-emption notice on any rank, every rank stops after the same step (the notice rides
     * in the gradients' all-reduce) and takes a snapshot, so that nothing is redone.
     *
     * @param range the steps
     * @return per-step timings and losses (fewer than asked after a notice), a process sample
     */
    public WorkerReport trainSteps(StepRange range) {
        ModelStage m = model();
        if (range.ahead && lastEnd != range.globalFirst) {
            // sent before the previous call's report: that call stopped early or failed
            return DataParallelSteps.Done.NONE.report(0, sampler.sample(), leaving());
        }
        lastEnd = -1; // until this call returns whole
        // A rank's snapshot and hash serve its peers: a lone worker's die with it, and it has
        // no replica to agree with, so it skips both (for a large model, tens of MB a call).
        boolean peers = worldSize() > 1;
        if (range.snapshot && peers) {
            snapshot(range.globalFirst);
        }
        DataParallelSteps.Done done = dataParallel().run(m, store().train(), config, range);
        if (done.stopped()) {
            snapshot(range.globalFirst + done.steps());
        }
        lastEnd = done.stopped() ? -1 : range.globalFirst + done.steps();
        return done.report(peers ? hash(m.parameters()) : 0, sampler.sample(), leaving());
    }

    /** Returns the steps this rank completed over the job (data parallelism), or -1. */
    public long progress() {
        return async != null ? async.completed : steps == null ? -1 : steps.completed;
    }

    /** Opens this rank's link to the job's parameter servers ({@code --sync async|ssp:S}). */
    public boolean connectServers(ServerGroup servers) {
        Closeables.closeAll(async);
        async = new AsyncSteps(servers, model(), this);
        return true;
    }

    /** Seeds the parameter servers with this replica (rank 0, before each run of steps). */
    public boolean seedServers(long step) {
        async.seed(model(), step);
        return true;
    }

    /** Runs a range of asynchronous steps through the parameter servers; see AsyncSteps. */
    public WorkerReport trainStepsAsync(StepRange range) {
        if (range.snapshot) {
            snapshot(range.globalFirst);
        }
        return async.run(model(), store().train(), rank(), config, range).report(0,
                sampler.sample(), leaving());
    }

    /** Takes the servers' parameters after a run; returns their hash, equal on every rank. */
    public long pullParameters() {
        async.pull(model());
        return hash(model.parameters());
    }

    /**
     * Runs a micro-batch forward on a stage. A first stage reads its features from the shard;
     * the last stage also runs the loss and the backward, and returns its input's gradient.
     *
     * @param microbatch the micro-batch's index over the job (step {@code s}, counted from 0,
     *     has micro-batches {@code s*M .. s*M+M-1})
     * @param activation the previous stage's output ({@link #NONE} on a first stage)
     * @return the activation for the next stage, or on the last stage the gradient for the
     *     stage before ({@link #NONE} when there is none)
     */
    @Override
    public byte[] forward(int microbatch, byte[] activation) {
        long t0 = System.nanoTime();
        ModelStage m = model();
        MicroBatchGraph g = m.microBatches();
        byte[] out;
        if (m.isFirst() || m.isLast()) {
            try (ShardArrays.Rows r = microbatchRows.open(config, store().train(),
                    rank() / (worldSize() / config.shards), microbatch)) {
                if (m.isLast()) {
                    step.lossSum += g.forwardBackward(microbatch, activation,
                            m.isFirst() ? r.features() : null, r.labels(),
                            1f / config.microbatches);
                    out = g.inputGradient(microbatch);
                } else {
                    out = g.forward(microbatch, r.features());
                }
            }
        } else {
            out = g.forward(microbatch, activation);
        }
        step.forwards++;
        return step.handOn(out, t0);
    }

    /**
     * Runs a micro-batch backward with the next stage's gradient.
     *
     * @param microbatch the micro-batch's index over the job
     * @param gradient the gradient of this stage's output
     * @return the gradient of this stage's input ({@link #NONE} on a first stage)
     */
    @Override
    public byte[] backward(int microbatch, byte[] gradient) {
        long t0 = System.nanoTime();
        byte[] out = model().microBatches().backward(microbatch, gradient);
        step.backwards++;
        return step.handOn(out, t0);
    }

    /**
     * Ends a staged step: checks that every micro-batch passed, averages the gradients with
     * the stage's replicas, takes the optimizer step, and starts the next step.
     *
     * @param globalStep the step's number over the job, for messages
     * @return what the stage did in this step
     */
    @Override
    public WorkerReport endStep(long globalStep) {
        ModelStage m = model();
        int mb = config.microbatches;
        if (step.forwards != mb || (!m.isLast() && step.backwards != mb)) {
            throw new DmlException("Stage " + config.stage + " ran " + step.forwards
                    + " forwards and " + step.backwards + " backwards of " + mb
                    + " micro-batches in step " + globalStep + ".",
                    "A neighbouring stage failed first; see its error.");
        }
        long t1 = System.nanoTime();
        CollectiveStats before = stats();
        if (worldSize() > 1) {
            m.setGradients(allReduce(m.gradients(), ReduceOp.AVERAGE));
        }
        CollectiveStats after = stats();
        long t2 = System.nanoTime();
        m.step();
        long busy = step.busy + System.nanoTime() - t2;
        WorkerReport report = new WorkerReport(
                new float[] {m.isLast() ? (float) (step.lossSum / mb) : Float.NaN},
                new long[] {busy}, new long[] {t2 - t1},
                new long[] {after.bytesSent() - before.bytesSent()},
                new long[] {after.interNodeBytesSent() - before.interNodeBytesSent()}, step.moved,
                hash(m.parameters()), sampler.sample(), leaving());
        step.begin(m);
        return report;
    }

    /**
     * Scores the validation rows with the whole model.
     *
     * @return their loss, accuracy and AUC
     */
    public Evaluation evaluate() {
        ShardArrays v = store().validation();
        for (int chunk = 0; chunk * ValidationPass.EVAL_ROWS < v.rows(); chunk++) {
            evalForward(chunk, NONE);
        }
        return evaluation();
    }

    /**
     * Runs a chunk of validation rows through this stage without gradients: a first stage reads
     * the features, the last stage scores the chunk against its labels.
     *
     * @param chunk the chunk, rows {@code [chunk * 4096, ...)}
     * @param activation the previous stage's output ({@link #NONE} on a first stage)
     * @return the activation for the next stage ({@link #NONE} on the last stage)
     */
    public byte[] evalForward(int chunk, byte[] activation) {
        ModelStage m = model();
        return validation.forward(m, config.model, m.isFirst() || m.isLast()
                ? store().validation() : null, chunk, activation);
    }

    /**
     * Returns the scores of the chunks the last stage saw since the previous call.
     *
     * @return the loss, accuracy and AUC
     */
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
     *
     * @return {@code true}
     */
    public boolean release() {
        dropSnapshots();
        preemption.leaveJob();
        try {
            Closeables.closeAll(this::closeLinks, model, data, device, steps, async);
        } finally {
            model = null;
            data = null;
            steps = null;
            async = null;
        }
        return true;
    }

    private DataParallelSteps dataParallel() {
        if (steps == null) {
            steps = new DataParallelSteps(this);
        }
        return steps;
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

package dev.dml.ray.pipeline;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.DmlException;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.data.ShardDecoder;
import dev.dml.ray.model.StageReplica;
import dev.dml.ray.train.ProcessSampler;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * One stage of one replica of a staged training job: a Ray actor that holds a {@link
 * StageReplica}, and, on a first or last stage, its replica's shard (features or labels).
 *
 * <p>Per step the driver calls {@link #forward} and {@link #backward} per micro-batch in the
 * order of the stage's schedule, each with the bytes the neighbouring stage returned (as a Ray
 * object reference, resolved by Ray), then, once they all ended, {@link #endStep}, which
 * averages the gradients with the stage's replicas (its {@link dev.dml.ray.collective.ActorGroup}
 * is the stage's replicas), takes the optimizer step and starts the next step. Micro-batches are
 * numbered within the epoch: micro-batch {@code i} is rows {@code [i*B/M, (i+1)*B/M)} of the
 * shard.
 */
public class StageWorker extends CollectiveWorker {

    /** What a task returns or takes where there is no tensor: Ray turns an empty array null. */
    static final byte[] NONE = {0};

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private BufferAllocator root;
    private ShardDecoder decoder;
    private NDManager manager;
    private ShardArrays data;
    private StageReplica stage;
    private StageConfig config;
    private final ProcessSampler sampler = new ProcessSampler();
    private int forwards;
    private int backwards;
    private double lossSum;
    private long busy;
    private long cpu;
    private long moved;

    /** Creates a worker; Ray calls it. */
    public StageWorker() {}

    /**
     * Decodes this replica's shard (first and last stages only).
     *
     * @param ipc the shard, Arrow IPC bytes
     * @return its row count
     */
    public int load(byte[] ipc) {
        if (root == null) {
            String name = "stage/" + rank();
            root = new RootAllocator();
            decoder = new ShardDecoder(root, name);
            manager = NDManager.newBaseManager("PyTorch");
            manager.setName(name);
        }
        if (data != null) {
            data.close();
        }
        data = decoder.openArrays(ipc, manager);
        return data.rows();
    }

    /**
     * Measures what each layer of the whole model costs, for an automatic split: its parameter
     * count, or (with {@code byTime}) its forward and backward time on one micro-batch of this
     * actor's shard. Builds the whole model for the while.
     *
     * @param cfg the job's config
     * @param byTime time the layers instead of counting their parameters
     * @return one cost per layer
     */
    public double[] layerCosts(StageConfig cfg, boolean byTime) {
        int layers = cfg.model.layerCount();
        try (StageReplica all = StageReplica.open(cfg.model, cfg.optimizer, 0, layers,
                cfg.job + "/costs")) {
            if (!byTime) {
                return Arrays.stream(all.layerParameters()).asDoubleStream().toArray();
            }
            try (NDArray x = shard().features().get(
                    new NDIndex("0:{}", cfg.batchSize / cfg.microbatches))) {
                return all.layerMillis(x, 5);
            }
        }
    }

    /**
     * Builds this stage's layers, initialised as in the whole model (so every replica starts
     * identical).
     *
     * @param cfg the stage's config
     * @return its parameter count
     */
    public int init(StageConfig cfg) {
        this.config = cfg;
        if (stage != null) {
            stage.close();
        }
        stage = StageReplica.open(cfg.model, cfg.optimizer, cfg.fromLayer, cfg.toLayer,
                cfg.job + "/" + cfg.stage + "/" + rank());
        if ((stage.isFirst() || stage.isLast()) && data == null) {
            throw new DmlException("Stage " + cfg.stage + " has no shard.",
                    "Call StageWorker.load on first and last stages before init.");
        }
        sampler.sample();
        startStep();
        return stage.parameterCount();
    }

    /** Zeroes the gradients and the step's counters. */
    private void startStep() {
        stage().beginStep();
        forwards = 0;
        backwards = 0;
        lossSum = 0;
        busy = 0;
        cpu = 0;
        moved = 0;
    }

    /**
     * Runs a micro-batch forward. A first stage reads its features from the shard; the last
     * stage also runs the loss and the backward, and returns its input's gradient.
     *
     * @param microbatch the micro-batch's index within the epoch
     * @param activation the previous stage's output ({@link #NONE} on a first stage)
     * @return the activation for the next stage, or on the last stage the gradient for the
     *     stage before ({@link #NONE} when there is none)
     */
    public byte[] forward(int microbatch, byte[] activation) {
        long t0 = System.nanoTime();
        long c0 = THREADS.getCurrentThreadCpuTime();
        StageReplica s = stage();
        int b = config.batchSize / config.microbatches;
        NDIndex rows = new NDIndex("{}:{}", microbatch * b, (microbatch + 1) * b);
        byte[] out;
        if (s.isLast()) {
            try (NDArray y = shard().labels().get(rows);
                    NDArray x = s.isFirst() ? shard().features().get(rows) : null) {
                lossSum += s.forwardBackward(microbatch, activation, x, y,
                        1f / config.microbatches);
            }
            out = s.inputGradient(microbatch);
        } else if (s.isFirst()) {
            try (NDArray x = shard().features().get(rows)) {
                out = s.forward(microbatch, x);
            }
        } else {
            out = s.forward(microbatch, activation);
        }
        forwards++;
        return handOn(out, t0, c0);
    }

    /**
     * Runs a micro-batch backward with the next stage's gradient.
     *
     * @param microbatch the micro-batch's index within the epoch
     * @param gradient the gradient of this stage's output
     * @return the gradient of this stage's input, for the stage before ({@link #NONE} on a
     *     first stage)
     */
    public byte[] backward(int microbatch, byte[] gradient) {
        long t0 = System.nanoTime();
        long c0 = THREADS.getCurrentThreadCpuTime();
        byte[] out = stage().backward(microbatch, gradient);
        backwards++;
        return handOn(out, t0, c0);
    }

    /**
     * Ends a step: checks that every micro-batch passed, averages the gradients with the
     * stage's replicas, takes the optimizer step, and starts the next step.
     *
     * @param globalStep the step's number over the job, for messages
     * @return what the stage did in this step
     */
    public StageReport endStep(long globalStep) {
        StageReplica s = stage();
        int m = config.microbatches;
        if (forwards != m || (!s.isLast() && backwards != m)) {
            throw new DmlException("Stage " + config.stage + " ran " + forwards + " forwards and "
                    + backwards + " backwards of " + m + " micro-batches in step " + globalStep
                    + ".", "A neighbouring stage failed first; see its error.");
        }
        long t1 = System.nanoTime();
        long reduceBytes = 0;
        if (worldSize() > 1) {
            long sent0 = stats().bytesSent();
            s.setGradients(allReduce(s.gradients(), ReduceOp.AVERAGE));
            reduceBytes = stats().bytesSent() - sent0;
        }
        long t2 = System.nanoTime();
        long c2 = THREADS.getCurrentThreadCpuTime();
        s.step();
        busy += System.nanoTime() - t2;
        cpu += THREADS.getCurrentThreadCpuTime() - c2;
        float[] p = s.parameters();
        sampler.sample();
        StageReport report = new StageReport(s.isLast() ? (float) (lossSum / m) : Float.NaN,
                busy, cpu, t2 - t1, reduceBytes, moved, Arrays.hashCode(p),
                sampler.cpuPercent(), sampler.heapBytes(), sampler.rssBytes());
        startStep();
        return report;
    }

    /**
     * Returns the stage's parameters as little-endian float32 bytes.
     *
     * @return {@code 4 * parameterCount} bytes
     */
    public byte[] parameterBytes() {
        float[] p = stage().parameters();
        ByteBuffer b = ByteBuffer.allocate(p.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(p);
        return b.array();
    }

    /**
     * Frees the stage, the shard and the allocator; the driver calls it before it kills the
     * actors, which matters in LOCAL mode where actors outlive the job.
     *
     * @return {@code true}
     */
    public boolean release() {
        if (stage != null) {
            stage.close();
            stage = null;
        }
        if (data != null) {
            data.close();
            data = null;
        }
        for (AutoCloseable c : new AutoCloseable[] {manager, decoder, root}) {
            try {
                if (c != null) {
                    c.close();
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
        manager = null;
        decoder = null;
        root = null;
        return true;
    }

    private byte[] handOn(byte[] out, long t0, long c0) {
        busy += System.nanoTime() - t0;
        cpu += THREADS.getCurrentThreadCpuTime() - c0;
        if (out == null) {
            return NONE;
        }
        moved += out.length;
        return out;
    }

    private StageReplica stage() {
        if (stage == null) {
            throw new DmlException("This stage has no model yet.",
                    "Call StageWorker.init before training.");
        }
        return stage;
    }

    private ShardArrays shard() {
        if (data == null) {
            throw new DmlException("This stage has no shard.",
                    "Call StageWorker.load first (first and last stages).");
        }
        return data;
    }
}

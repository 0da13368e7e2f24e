package dev.dml.ray.train;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.DmlException;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.data.ShardDecoder;
import dev.dml.ray.model.Metrics;
import dev.dml.ray.model.Objective;
import dev.dml.ray.model.TrainingReplica;
import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * One rank of a data-parallel training job: a Ray actor that holds its shard as NDArrays and a
 * {@link TrainingReplica}, and averages its gradients with its peers after every step.
 *
 * <p>The driver calls, on every rank: {@link #load} (the shard's Arrow IPC bytes, decoded once),
 * {@link #init} (the replica; rank 0's initial parameters are broadcast so all start identical),
 * optionally {@link #restore} (a checkpoint's state), then {@link #trainSteps} repeatedly. Step
 * {@code t} of an epoch trains on rows {@code [t*B, (t+1)*B)} of the shard, so with {@code N}
 * ranks the global batch of step {@code t} is the concatenation of those rows over the ranks,
 * and the averaged gradient equals that of the {@code N*B} rows (losses are batch means).
 *
 * <p>Rank 0 also evaluates the validation split ({@link #evaluate}), writes checkpoints, and
 * returns the final parameters ({@link #parameterBytes}).
 */
public class TrainWorker extends CollectiveWorker {

    private BufferAllocator root;
    private ShardDecoder decoder;
    private NDManager manager;
    private ShardArrays data;
    private ShardArrays validation;
    private TrainingReplica replica;
    private WorkerConfig config;
    private final ProcessSampler sampler = new ProcessSampler();
    /** The gradients sent to the all-reduce, reused: a fresh one per step is a G1 humongous. */
    private float[] gradients;

    /** Creates a worker; Ray calls it. */
    public TrainWorker() {}

    /**
     * Decodes this rank's shard into NDArrays, once.
     *
     * @param ipc the shard, Arrow IPC bytes
     * @return the shard's row count
     */
    public int load(byte[] ipc) {
        openMemory();
        if (data != null) {
            data.close();
        }
        data = decoder.openArrays(ipc, manager);
        return data.rows();
    }

    /**
     * Decodes the validation split (rank 0 only).
     *
     * @param ipc the split, Arrow IPC bytes
     * @return its row count
     */
    public int loadValidation(byte[] ipc) {
        openMemory();
        if (validation != null) {
            validation.close();
        }
        validation = decoder.openArrays(ipc, manager);
        return validation.rows();
    }

    /**
     * Opens the replica and makes every rank start from rank 0's parameters (a broadcast).
     *
     * @param cfg the job's settings
     * @return the parameter count
     */
    public int init(WorkerConfig cfg) {
        if (data == null) {
            throw new DmlException("Rank " + rank() + " has no shard.",
                    "Call TrainWorker.load before init.");
        }
        this.config = cfg;
        if (replica != null) {
            replica.close();
        }
        replica = TrainingReplica.open(cfg.model, cfg.optimizer, cfg.job + "/" + rank());
        float[] mine = rank() == 0 ? replica.parameters() : new float[0];
        replica.setParameters(broadcast(mine));
        sampler.sample();
        return replica.parameterCount();
    }

    /**
     * Loads a checkpoint's state (parameters and optimizer state) into the replica.
     *
     * @param state the bytes {@code TrainingReplica.saveState()} wrote
     * @return a hash of the parameters, equal on every rank
     */
    public long restore(byte[] state) {
        replica().loadState(state);
        return hash(replica.parameters());
    }

    /**
     * Runs a range of steps: each forward and backward on the local batch, an all-reduce
     * (average) of the gradients with every peer, and the optimizer step. Every rank must be
     * called with the same range. Rank 0 writes a checkpoint whenever the global step is a
     * multiple of the checkpoint interval.
     *
     * @param range the steps
     * @return per-step timings and losses, and a process sample
     */
    public ChunkReport trainSteps(StepRange range) {
        TrainingReplica r = replica();
        int b = config.batchSize;
        float[] losses = new float[range.count];
        long[] compute = new long[range.count];
        long[] comm = new long[range.count];
        long[] bytes = new long[range.count];
        for (int i = 0; i < range.count; i++) {
            int from = (range.first + i) * b;
            long t0 = System.nanoTime();
            losses[i] = r.forwardBackward(data, from, from + b);
            long t1 = System.nanoTime();
            long t2 = t1;
            if (worldSize() > 1) {
                // Alone, a rank's gradients already are the average: skip three copies of them.
                long sent0 = stats().bytesSent();
                if (gradients == null || gradients.length != r.parameterCount()) {
                    gradients = new float[r.parameterCount()];
                }
                r.copyGradients(FloatBuffer.wrap(gradients));
                float[] mean = allReduce(gradients, ReduceOp.AVERAGE);
                t2 = System.nanoTime();
                bytes[i] = stats().bytesSent() - sent0;
                r.setGradients(mean);
            }
            r.step();
            long t3 = System.nanoTime();
            compute[i] = (t1 - t0) + (t3 - t2);
            comm[i] = t2 - t1;
            long global = range.globalFirst + i + 1;
            if (rank() == 0 && config.checkpointEvery > 0 && global % config.checkpointEvery == 0) {
                Checkpoints.write(Path.of(config.checkpointDir), global, config.stepsPerEpoch,
                        r.saveState());
            }
        }
        sampler.sample();
        return new ChunkReport(losses, compute, comm, bytes, hash(r.parameters()),
                sampler.cpuPercent(), sampler.heapBytes(), sampler.rssBytes());
    }

    /**
     * Evaluates the replica on the validation split (rank 0): mean loss, accuracy and, for two
     * classes, ROC AUC.
     *
     * @return the metrics
     */
    public Evaluation evaluate() {
        TrainingReplica r = replica();
        if (validation == null) {
            throw new DmlException("Rank " + rank() + " has no validation split.",
                    "Call TrainWorker.loadValidation first (rank 0 only).");
        }
        int rows = validation.rows();
        int outputs = r.spec().outputs();
        float[] scores = new float[rows * outputs];
        double lossSum = 0;
        for (int from = 0; from < rows; from += 4096) {
            int to = Math.min(rows, from + 4096);
            try (NDArray x = validation.features().get(new NDIndex("{}:{}", from, to));
                    NDArray y = validation.labels().get(new NDIndex("{}:{}", from, to))) {
                lossSum += (double) r.loss(x, y) * (to - from);
                System.arraycopy(r.predict(x), 0, scores, from * outputs, (to - from) * outputs);
            }
        }
        float loss = (float) (lossSum / rows);
        if (validation.labelKind() != LabelKind.CLASSES) {
            return new Evaluation(loss, Double.NaN, Double.NaN);
        }
        int[] labels = validation.labels().toIntArray();
        int[] predicted = new int[rows];
        float[] positive = new float[rows];
        boolean sigmoid = r.spec().objective() == Objective.SIGMOID_BINARY_CROSS_ENTROPY;
        for (int i = 0; i < rows; i++) {
            if (sigmoid) {
                positive[i] = scores[i];
                predicted[i] = scores[i] > 0.5f ? 1 : 0;
            } else {
                int best = 0;
                for (int k = 1; k < outputs; k++) {
                    if (scores[i * outputs + k] > scores[i * outputs + best]) {
                        best = k;
                    }
                }
                predicted[i] = best;
                positive[i] = outputs == 2 ? scores[i * outputs + 1] : 0f;
            }
        }
        double auc = sigmoid || outputs == 2 ? Metrics.rocAuc(positive, labels) : Double.NaN;
        return new Evaluation(loss, Metrics.accuracy(predicted, labels), auc);
    }

    /**
     * Returns the replica's parameters as little-endian float32 bytes (bytes cross Ray fast;
     * float arrays do not).
     *
     * @return {@code 4 * parameterCount} bytes
     */
    public byte[] parameterBytes() {
        float[] p = replica().parameters();
        ByteBuffer b = ByteBuffer.allocate(p.length * Float.BYTES)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(p);
        return b.array();
    }

    /**
     * Frees the replica, the arrays and the allocator; the driver calls it before it kills the
     * actors, which matters in LOCAL mode where actors outlive the group.
     *
     * @return {@code true}
     */
    public boolean release() {
        if (replica != null) {
            replica.close();
            replica = null;
        }
        gradients = null;
        for (ShardArrays a : new ShardArrays[] {data, validation}) {
            if (a != null) {
                a.close();
            }
        }
        data = null;
        validation = null;
        if (manager != null) {
            manager.close();
            manager = null;
        }
        if (decoder != null) {
            decoder.close();
            decoder = null;
        }
        if (root != null) {
            root.close();
            root = null;
        }
        return true;
    }

    static float[] floats(byte[] bytes) {
        float[] out = new float[bytes.length / Float.BYTES];
        ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }

    private void openMemory() {
        if (root == null) {
            String name = "train/" + rank();
            root = new RootAllocator();
            decoder = new ShardDecoder(root, name);
            manager = NDManager.newBaseManager("PyTorch");
            manager.setName(name);
        }
    }

    private TrainingReplica replica() {
        if (replica == null) {
            throw new DmlException("Rank " + rank() + " has no model yet.",
                    "Call TrainWorker.init before training.");
        }
        return replica;
    }

    private static long hash(float[] p) {
        return Arrays.hashCode(p);
    }
}

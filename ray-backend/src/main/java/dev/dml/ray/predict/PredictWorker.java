package dev.dml.ray.predict;

import ai.djl.ndarray.NDManager;
import dev.dml.Closeables;
import dev.dml.DmlException;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.data.ShardDecoder;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.Predictions;
import dev.dml.ray.train.result.ResultFiles;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A Ray actor that scores one shard of a table: it opens the trained model as {@code
 * TrainResult.predict} does in the kernel ({@code openReplica}: the spec and the trained
 * parameters), decodes its shard (features already encoded by the kernel with the model's
 * columns and categories), and scores row ranges of it on request. The driver kills it after the
 * call; {@link #release} frees its memory first, which matters in Ray's LOCAL mode.
 */
public class PredictWorker extends CollectiveWorker {

    private ModelStage model;
    private BufferAllocator root;
    private ShardDecoder decoder;
    private NDManager manager;
    private ShardArrays shard;

    /** Creates a worker; Ray calls it. */
    public PredictWorker() {}

    /**
     * Opens the model, replacing any earlier one.
     *
     * @param result a {@code TrainResult}, as {@link ResultFiles#toBytes} wrote it
     * @return the model's input count
     */
    public int openModel(byte[] result) {
        ModelStage old = model;
        model = null;
        Closeables.closeAll(old);
        model = ResultFiles.fromBytes(result).openReplica();
        return model.spec().inputs();
    }

    /**
     * Decodes this worker's rows, replacing any earlier ones.
     *
     * @param ipc the shard, Arrow IPC bytes of the feature columns
     * @return its row count
     */
    public int openShard(byte[] ipc) {
        closeShard();
        root = new RootAllocator();
        decoder = new ShardDecoder(root, "predict/" + rank());
        manager = NDManager.newBaseManager("PyTorch");
        manager.setName("predict/" + rank());
        shard = decoder.openArrays(ipc, manager);
        if (model != null && shard.featureCount() != model.spec().inputs()) {
            throw new DmlException("The shard has " + shard.featureCount() + " inputs per row"
                    + " and the model takes " + model.spec().inputs() + ".", "Encode the"
                    + " table with the model's own columns (TrainResult.columns()).");
        }
        return shard.rows();
    }

    /**
     * Scores rows {@code [from, to)} of the shard.
     *
     * @param from the first row
     * @param to one past the last
     * @param batch rows per forward pass
     * @return the model's outputs for each row, row-major
     */
    public float[] score(int from, int to, int batch) {
        if (model == null || shard == null) {
            throw new DmlException("This worker has no model or no rows to score.",
                    "The driver opens both before scoring.");
        }
        return Predictions.scores(model, shard.features(), from, to, batch);
    }

    /**
     * Frees the model, the rows and their memory.
     *
     * @return {@code true}
     */
    public boolean release() {
        ModelStage m = model;
        model = null;
        try {
            closeShard();
        } finally {
            Closeables.closeAll(m);
        }
        return true;
    }

    private void closeShard() {
        try {
            Closeables.closeAll(shard, manager, decoder, root);
        } finally {
            shard = null;
            manager = null;
            decoder = null;
            root = null;
        }
    }
}

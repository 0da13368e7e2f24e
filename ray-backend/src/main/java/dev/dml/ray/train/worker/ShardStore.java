package dev.dml.ray.train.worker;

import ai.djl.ndarray.NDManager;
import dev.dml.Closeables;
import dev.dml.DmlException;
import dev.dml.ray.data.FileShard;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.data.ShardDecoder;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A worker's data in memory: its training shard and validation rows, decoded once from Arrow
 * IPC bytes into NDArrays, with the allocator and the NDManager they live in, named after the
 * worker. Closing frees all of it, keeping any later failure as a suppressed exception.
 */
final class ShardStore implements AutoCloseable {

    private final BufferAllocator root;
    private final ShardDecoder decoder;
    private final NDManager manager;
    private ShardArrays train;
    private ShardArrays validation;

    ShardStore(String name) {
        this.root = new RootAllocator();
        this.decoder = new ShardDecoder(root, name);
        this.manager = NDManager.newBaseManager("PyTorch");
        manager.setName(name);
    }

    /**
     * Decodes the training shard, replacing any earlier one; returns its rows. A {@link
     * FileShard} is read here, from the files, through the node's cache.
     */
    int loadTrain(byte[] ipc) {
        ShardArrays old = train;
        train = FileShard.isFileShard(ipc) ? FileShard.fromBytes(ipc).open(decoder, manager)
                : decoder.openArrays(ipc, manager);
        Closeables.closeAll(old);
        return train.rows();
    }

    /** Decodes the validation rows, replacing any earlier ones; returns their count. */
    int loadValidation(byte[] ipc) {
        ShardArrays old = validation;
        validation = decoder.openArrays(ipc, manager);
        Closeables.closeAll(old);
        return validation.rows();
    }

    /** The training shard, borrowed. */
    ShardArrays train() {
        if (train == null) {
            throw new DmlException("This worker has no training shard.",
                    "The driver loads one before training (first and last stages only).");
        }
        return train;
    }

    /** The validation rows, borrowed. */
    ShardArrays validation() {
        if (validation == null) {
            throw new DmlException("This worker has no validation rows.",
                    "The driver loads them before evaluating (first and last stages only).");
        }
        return validation;
    }

    boolean hasTrain() {
        return train != null;
    }

    boolean hasValidation() {
        return validation != null;
    }

    @Override
    public void close() {
        Closeables.closeAll(train, validation, manager, decoder, root);
    }
}

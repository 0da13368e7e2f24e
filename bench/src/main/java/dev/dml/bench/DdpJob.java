package dev.dml.bench;

/**
 * One job of P3, the same on both sides: a model, a worker count, and the training settings
 * below, which both dml and the PyTorch script get from here.
 *
 * @param cnn {@code true} for dml's small CNN, {@code false} for the MLP 784-1024-1024-10
 * @param workers 1 or 2
 */
record DdpJob(boolean cnn, int workers) {

    /** Rows per worker per step. */
    static final int BATCH = 128;
    /** Steps per epoch: each worker's shard is {@code BATCH * STEPS_PER_EPOCH} rows. */
    static final int STEPS_PER_EPOCH = 50;
    /** Epochs, so {@value #EPOCHS} × {@value #STEPS_PER_EPOCH} steps in all. */
    static final int EPOCHS = 4;
    /** Steps left out of the throughput: the warm-up of a fresh process. */
    static final int WARM_STEPS = 20;
    /** Test accuracy is measured after every this many steps (a multiple of dml's chunk). */
    static final int EVAL_EVERY = 20;

    /** Returns the name used in the result, e.g. {@code mlp_2w}. */
    String name() {
        return (cnn ? "cnn" : "mlp") + "_" + workers + "w";
    }

    /** Returns the steps of a run. */
    int steps() {
        return EPOCHS * STEPS_PER_EPOCH;
    }

    /** Returns the training rows: the first rows of Fashion-MNIST's training split. */
    int rows() {
        return workers * BATCH * STEPS_PER_EPOCH;
    }

    /** Returns the examples of the timed steps (after the warm-up), over all workers. */
    long timedExamples() {
        return (long) (steps() - WARM_STEPS) * BATCH * workers;
    }

    /**
     * Returns the test accuracy to reach: one that both sides first reach after about half the
     * run, picked from the trajectories in {@code P3.json} (2 workers, with twice the global
     * batch, get further in the same steps).
     */
    double targetAccuracy() {
        return cnn ? (workers > 1 ? 0.815 : 0.81) : (workers > 1 ? 0.84 : 0.825);
    }

    /** Returns the model as the result describes it. */
    String model() {
        return cnn ? "CNN: conv 5x5 8 ch, ReLU, max-pool 2, conv 5x5 16 ch, ReLU, max-pool 2,"
                + " dense 64, ReLU, dense 10 (54k parameters)"
                : "MLP 784-1024-1024-10 with ReLU and input standardisation (1.86M parameters)";
    }
}

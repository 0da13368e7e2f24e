package dev.dml.ray.train.worker;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.index.NDIndex;
import dev.dml.DmlException;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;

/**
 * A worker's side of validation: chunks of validation rows through its stage without gradients,
 * the last stage scoring them, until the driver takes the scores.
 */
public final class ValidationPass {

    /** The most validation rows scored at once: memory stays bounded on big validation sets. */
    static final int EVAL_ROWS = 4096;
    /** The fewest: a chunk is still a batch worth running at once. */
    static final int MIN_EVAL_ROWS = 64;
    /**
     * What a chunk's activations may take: a CNN's rows are wide (28x28 pixels in 8 channels make
     * 88 KB of activations per row), so 4,096 of them would hold hundreds of megabytes at once.
     */
    static final long EVAL_BYTES = 16L << 20;

    private ValidationScores scores;

    /**
     * Runs one chunk through {@code m}: a first stage reads the features, a middle one only
     * passes the activation on, the last scores the chunk against its labels.
     *
     * @param v the validation rows; null on a middle stage, which holds none
     *
     * @return the activation for the next stage ({@link TrainWorker#NONE} on the last stage)
     */
    byte[] forward(ModelStage m, ModelSpec spec, ShardArrays v, int chunk, byte[] activation) {
        if (!m.isFirst() && !m.isLast()) {
            return m.infer(activation); // a middle stage holds no rows
        }
        int per = chunkRows(spec);
        NDIndex rows = new NDIndex("{}:{}", chunk * per, Math.min(v.rows(), (chunk + 1) * per));
        try (NDArray x = m.isFirst() ? v.features().get(rows) : null) {
            if (!m.isLast()) {
                return m.infer(x);
            }
            if (scores == null) {
                scores = new ValidationScores(spec, v.labelKind() == LabelKind.CLASSES);
            }
            try (NDArray y = v.labels().get(rows)) {
                scores.add(x != null ? m.score(x, y) : m.score(activation, y), y);
            }
            return TrainWorker.NONE;
        }
    }

    /**
     * The validation rows scored at once for a model: as many as fit {@link #EVAL_BYTES} of
     * activations, between {@link #MIN_EVAL_ROWS} and {@link #EVAL_ROWS}. The driver counts
     * chunks with it and the workers cut them with it, so both must call it with the same spec.
     */
    static int chunkRows(ModelSpec spec) {
        long perRow = spec.activationFloatsPerRow() * Float.BYTES;
        if (perRow <= 0) {
            return EVAL_ROWS;
        }
        return (int) Math.max(MIN_EVAL_ROWS, Math.min(EVAL_ROWS, EVAL_BYTES / perRow));
    }

    /** The number of chunks of {@link #chunkRows} rows that {@code rows} rows make. */
    public static int chunks(ModelSpec spec, int rows) {
        int per = chunkRows(spec);
        return (rows + per - 1) / per;
    }

    /** Returns the scores of the chunks seen since the previous call, and starts over. */
    Evaluation take() {
        if (scores == null) {
            throw new DmlException("No validation rows were scored on this worker.",
                    "Run evalForward on every chunk first (the last stage scores).");
        }
        Evaluation e = scores.result();
        scores = null;
        return e;
    }
}

package dev.dml.ray.train;

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
final class ValidationPass {

    /** Validation rows scored at once: memory stays bounded on big validation sets. */
    static final int EVAL_ROWS = 4096;

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
        NDIndex rows = new NDIndex("{}:{}", chunk * EVAL_ROWS,
                Math.min(v.rows(), (chunk + 1) * EVAL_ROWS));
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

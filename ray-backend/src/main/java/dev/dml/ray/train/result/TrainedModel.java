package dev.dml.ray.train.result;

import ai.djl.Model;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.ModelExport;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.model.Predictions;
import tech.tablesaw.api.Table;

/**
 * The model a job trained, as DJL's {@code Model} with its {@code Predictor}: the spec and
 * optimizer it was built from, the feature columns it takes, its flat parameters, and the
 * replicas that predict with them in this JVM on the CPU. Immutable; the part of a {@link
 * TrainResult} its predictions and exports come from.
 *
 * @param job the job's id, which names the replicas' memory pools
 * @param spec the model
 * @param optimizer the optimizer it was trained with
 * @param features the feature columns it takes
 * @param parameters the flat parameters, as saved: not copied
 */
public record TrainedModel(String job, ModelSpec spec, OptimizerSpec optimizer,
        ColumnSelection features, float[] parameters) {

    /** Opens the whole model with the trained parameters, named {@code job/result}. */
    public ModelStage openReplica() {
        ModelStage r = ModelStage.openWhole(spec, optimizer, job + "/result");
        try {
            r.setParameters(parameters);
            return r;
        } catch (RuntimeException e) {
            r.close();
            throw e;
        }
    }

    /** One array of outputs per row of {@code table}. */
    public float[][] scores(Table table) {
        try (ModelStage r = openReplica()) {
            return Predictions.scores(r, table, features.featuresOnly());
        }
    }

    /** One class per row of {@code table}. */
    public int[] predictClasses(Table table) {
        try (ModelStage r = openReplica()) {
            return Predictions.classes(r, table, features.featuresOnly());
        }
    }

    /** Output {@code output} of {@link #scores}, one value per row. */
    public float[] probabilities(Table table, int output) {
        float[][] p = scores(table);
        float[] out = new float[p.length];
        for (int i = 0; i < p.length; i++) {
            out[i] = p[i][output];
        }
        return out;
    }

    /** A new DJL model holding a copy of the parameters. */
    public Model openModel() {
        try (ModelStage whole = openReplica()) {
            return ModelExport.openDjlModel(whole);
        }
    }
}

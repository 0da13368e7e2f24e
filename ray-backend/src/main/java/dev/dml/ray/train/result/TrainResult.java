package dev.dml.ray.train.result;

import ai.djl.Model;
import dev.dml.Vocabulary;
import dev.dml.events.EpochMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.RegressionMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.ModelExport;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.recovery.RecoveryStats;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamField;
import java.io.Serializable;
import java.nio.file.Path;
import java.util.List;
import tech.tablesaw.api.Table;

/**
 * What a training job produced: the trained model (usable at once with {@link #predict}), the
 * metrics of every step and epoch, the wall time and the workers. Immutable.
 *
 * <pre>{@code
 * TrainResult r = Dml.train(spec);
 * Table scored = r.predict(testTable);        // p0..pk-1 and "predicted"
 * Table losses = r.metrics();                 // one row per step
 * double auc = Metrics.rocAuc(r.probabilities(testTable, 1), labels);
 * }</pre>
 *
 * <p>The one place users reach a result through, made of three parts as DJL splits {@code
 * Model}, {@code TrainingResult} and {@code Predictor}: the trained model, which predicts and is
 * exported ({@code TrainedModel}), the job's history and metric tables ({@code TrainHistory}),
 * and its recoveries from lost workers ({@code RecoveryStats}). It is serialized in the form it
 * had before the split ({@code ResultSerialForm}), so saved models still open.
 */
public final class TrainResult implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final ObjectStreamField[] serialPersistentFields = ResultSerialForm.FIELDS;

    // not final only for readObject
    private TrainedModel trained;
    private TrainHistory history;
    private RecoveryStats recovery;

    public TrainResult(String job, ModelSpec model, OptimizerSpec optimizer,
            ColumnSelection features, float[] parameters, List<StepMetrics> steps,
            List<EpochMetrics> epochs,
            List<WorkerInfo> workers, long globalSteps, long resumedFromStep, boolean stopped,
            double wallSeconds, List<Recovery> recoveries) {
        this(new TrainedModel(job, model, optimizer, features, parameters),
                new TrainHistory(steps, epochs, workers, globalSteps, resumedFromStep, stopped,
                        wallSeconds, 0, 0), new RecoveryStats(recoveries));
    }

    public TrainResult(TrainedModel trained, TrainHistory history, RecoveryStats recovery) {
        this.trained = trained;
        this.history = history;
        this.recovery = recovery;
    }

    /** This result with another wall time. */
    public TrainResult withWallSeconds(double seconds) {
        return new TrainResult(trained, history.withWallSeconds(seconds), recovery);
    }

    /** This result with what {@code --early-stop} did, set as the result is made. */
    public TrainResult withEarlyStop(int stoppedAfter, int kept) {
        return new TrainResult(trained, history.withEarlyStop(stoppedAfter, kept), recovery);
    }

    /** @return the epoch (from 1) after which {@code --early-stop} stopped the job, or 0 */
    public int stoppedEarlyAfter() {
        return history.stoppedEarlyAfter();
    }

    /** @return the epoch (from 1) of lowest validation loss, whose parameters {@code
     *     --early-stop} kept; 0 without it (the last parameters are kept) */
    public int keptEpoch() {
        return history.keptEpoch();
    }

    /**
     * Tells whether the loss was still falling clearly when the job ended ({@link LossTrend}),
     * as scikit-learn's {@code ConvergenceWarning} does.
     *
     * @return the line that says so, such as "Still improving: ...; more optEpochs would
     *     likely help.", or {@code null} when the loss had levelled off or the job was stopped
     */
    public String stillImproving() {
        String t = lossTrend();
        return t == null ? null : Vocabulary.JAVA.render(t);
    }

    /** {@link #stillImproving} as a template naming options; null for a stopped job. */
    public String lossTrend() {
        return history.lossTrend();
    }

    /** Returns every recovery from lost or pre-empted workers, in order.
     *  @return the recoveries; empty when no worker was lost */
    public List<Recovery> recoveries() {
        return List.copyOf(recovery.list());
    }

    /** Returns how many times workers were lost (crashes, lost nodes), pre-emptions apart.
     *  @return the failures the job recovered from */
    public int failures() {
        return recovery.failures();
    }

    /** Returns how many times workers left on a pre-emption notice.
     *  @return the pre-emptions the job recovered from */
    public int preemptions() {
        return recovery.preemptions();
    }

    /** Returns the time spent recovering, from noticing each loss to restored workers.
     *  @return seconds, summed over the recoveries */
    public double recoverySeconds() {
        return recovery.seconds();
    }

    /** Returns the steps that ran again after recoveries.
     *  @return the steps, summed over the recoveries */
    public long stepsRedone() {
        return recovery.stepsRedone();
    }

    /** Returns the job's name. @return the name */
    public String job() {
        return trained.job();
    }

    /** Returns the model that was trained. @return the spec */
    public ModelSpec model() {
        return trained.spec();
    }

    /** Returns the feature columns the model takes, in order.
     *  @return the selection (with the label it was trained on) */
    public ColumnSelection columns() {
        return trained.features();
    }

    /** Returns the trained parameters, flat, in the whole model's order. @return a copy */
    public float[] parameters() {
        return trained.parameters().clone();
    }

    /**
     * Returns the metrics of the steps this job ran, in order: every step of a job of up to
     * 20,000 steps; of a longer one, the last 10,000 and an evenly spaced sample of at most
     * 10,000 before them (every 2nd, 4th, ... step), so a job's memory stays bounded.
     *
     * @return the steps
     */
    public List<StepMetrics> steps() {
        return List.copyOf(history.stepList());
    }

    /** Returns the metrics of every epoch this job completed, in order. @return the epochs */
    public List<EpochMetrics> epochs() {
        return List.copyOf(history.epochList());
    }

    /**
     * Returns the last validation RMSE, MAE and R² of a regression job.
     *
     * @return the metrics of the last epoch that had them; {@link RegressionMetrics#NONE} for
     *     classes or without validation rows
     */
    public RegressionMetrics validationRegression() {
        return history.validationRegression();
    }

    /** Returns who the workers were: rank, pid, host. @return the workers, by rank */
    public List<WorkerInfo> workers() {
        return List.copyOf(history.workerList());
    }

    /** Returns the global step count at the end, checkpointed steps before a resume included.
     *  @return the steps */
    public long globalSteps() {
        return history.globalSteps();
    }

    /** Returns the checkpoint step this job resumed from.
     *  @return the step, or -1 when it started afresh */
    public long resumedFromStep() {
        return history.resumedFromStep();
    }

    /** Tells whether the job was stopped before its last epoch ({@link TrainJob#stop()}).
     *  @return {@code true} when stopped early */
    public boolean stopped() {
        return history.stopped();
    }

    /** Returns the job's wall time, from its start in the kernel to its result.
     *  @return seconds */
    public double wallSeconds() {
        return history.wallSeconds();
    }

    /** Returns the last step's loss. @return the loss, NaN when no step ran */
    public float finalLoss() {
        return history.finalLoss();
    }

    /**
     * Predicts every row of a table: class probabilities (softmax), the positive class's
     * probability (sigmoid) or values (regression). Runs in this JVM on the CPU.
     *
     * @param table a table with the feature columns (the label is not needed)
     * @return one array of {@code outputs} floats per row
     * @throws dev.dml.DmlException when a feature column is missing or not numeric
     */
    public float[][] scores(Table table) {
        return trained.scores(table);
    }

    /**
     * Predicts the class of every row (argmax, or probability &gt; 0.5 for sigmoid).
     *
     * @param table a table with the feature columns
     * @return one class per row
     */
    public int[] predictClasses(Table table) {
        return trained.predictClasses(table);
    }

    /**
     * Returns one output column of {@link #scores}: for two classes, {@code
     * probabilities(t, 1)} is the positive class's probability, the score for ROC AUC.
     *
     * @param table a table with the feature columns
     * @param output the output index
     * @return one value per row
     */
    public float[] probabilities(Table table, int output) {
        return trained.probabilities(table, output);
    }

    /**
     * Predicts a table and returns the outputs as a new table: float columns {@code p0..p(k-1)}
     * and, for a classifier, a column {@code predicted}: the class names when the label held
     * text ({@link #classNames()}), else the class indices.
     *
     * @param table a table with the feature columns
     * @return a new table with one row per input row
     */
    public Table predict(Table table) {
        return PredictionTables.of(this, table.name() + " predictions", scores(table));
    }

    /**
     * Returns the class names of a label that held text, learnt on the training table: class
     * {@code i} of {@link #predictClasses} is element {@code i}.
     *
     * @return the names, empty for a numeric label
     */
    public List<String> classNames() {
        return trained.features().classNames();
    }

    /**
     * Returns the per-step metrics as a table: {@code step, epoch, loss, examples_per_s,
     * compute_ms, allreduce_ms, allreduce_bytes, lr} (the learning rate of the step's update).
     *
     * @return a new table, one row per step kept (see {@link #steps()})
     */
    public Table metrics() {
        return history.stepTable(trained.job());
    }

    /**
     * Returns the per-epoch metrics as a table: {@code epoch, steps, train_loss, seconds,
     * examples_per_s} and, with validation, {@code val_loss, val_accuracy, val_auc} (NaN for
     * a regression) and {@code val_rmse, val_mae, val_r2} (NaN for classes).
     *
     * @return a new table, one row per epoch
     */
    public Table epochMetrics() {
        return history.epochTable(trained.job());
    }

    /**
     * Opens the trained model as a DJL {@link Model}: its block holds a copy of the trained
     * parameters, so {@code model.newPredictor(new NoopTranslator())} predicts in this JVM and
     * {@code model.save(dir, name)} writes DJL's format. Its input is the feature columns,
     * {@code [rows, inputs]} float32 in {@link #columns()} order; its output the raw scores
     * (logits) {@code [rows, outputs]}, before softmax or sigmoid.
     *
     * @return a new DJL model, owned by the caller
     */
    public Model openModel() {
        return trained.openModel();
    }

    /**
     * Opens dml's own replica of the trained model, the unit a worker trains: a {@link
     * ModelStage} holding every layer, with the optimizer's state. {@link #predict} uses it.
     *
     * @return the replica, owned by the caller
     */
    public ModelStage openReplica() {
        return trained.openReplica();
    }

    /**
     * Saves the trained model to a folder that programs without dml load (DJL, PyTorch weights,
     * {@link ModelExport}'s JSON) and {@code dml-result.ser}, which {@link #open} reopens.
     *
     * @param dir the folder, made if missing; an earlier save there is replaced as a whole
     *     (the new one is written beside it, then swapped in: a full disk or a crash leaves
     *     the earlier one as it was)
     * @throws dev.dml.DmlException when the folder cannot be written, or holds files no save
     *     wrote
     */
    public void save(Path dir) {
        ResultFiles.save(this, dir);
    }

    /**
     * Opens a model that {@link #save} wrote, as it was trained: {@link #predict} encodes a new
     * table with the categories and gives the class names the training table had. Reads dml's
     * own file {@code dml-result.ser} of that folder (Java serialization, limited to dml's and
     * the JDK's value classes, see {@link dev.dml.ray.cluster.Payloads}): open only folders you
     * trust, with the dml version that saved them.
     *
     * @param dir the folder {@link #save} wrote
     * @return the result
     * @throws dev.dml.DmlException when the folder holds no model dml can read
     */
    public static TrainResult open(Path dir) {
        return ResultFiles.read(dir);
    }

    /**
     * Reopens the model a recorded run saved into its folder of {@link RunFolders#defaultStore}.
     *
     * @param runId the run's id, from {@code Runs.open().table()} or {@code %dml runs}
     * @return the result
     * @throws dev.dml.DmlException when the store has no such run, or the run no model
     */
    public static TrainResult open(String runId) {
        return RunFolders.openModel(RunFolders.defaultStore(), runId);
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        ResultSerialForm.write(trained, history, recovery, out);
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        TrainResult r = ResultSerialForm.read(in);
        trained = r.trained;
        history = r.history;
        recovery = r.recovery;
    }

    @Override
    public String toString() {
        return MetricTables.summary(this);
    }
}

package dev.dml.ray.runs;

import com.google.gson.Gson;
import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.Vocabulary;
import dev.dml.events.JobCost;
import dev.dml.events.JobNotice;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.options.Option;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import dev.dml.ray.train.result.RunFolders;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainingListener;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records one training job as it runs: into a {@link RunStore} (settings, data, per-step and
 * per-epoch metrics, cost, end) and as TensorBoard event files in the run's folder (scalars per
 * step and per epoch, the settings as HParams). Attach it to the job it records:
 *
 * <pre>{@code
 * try (RunStore store = RunStore.open()) {
 *     RunRecorder run = RunRecorder.start(store, spec);
 *     TrainResult result = Dml.train(spec.toBuilder().addListener(run).build());
 * }
 * }</pre>
 *
 * <p>{@code Dml.train} and {@code %dml train} attach one to every job unless {@code
 * --no-record}. The run is marked running when it starts, and finished, stopped or failed when
 * its job ends, when its trained model is saved into its folder ({@link RunFolders#model});
 * if this process dies first it reads as lost, with the metrics recorded until then. Events
 * only queue their writes, which a {@link RunWriter} applies in batches on its own thread, so
 * recording never holds up the thread that delivers the job's events. The recorder borrows
 * the store; it closes its event file when the job ends.
 */
public final class RunRecorder implements TrainingListener {

    /** The scalar tags written per step and per epoch, as TensorBoard shows them. */
    public static final String LOSS = "train/loss";
    /** Examples per second of a step. */
    public static final String THROUGHPUT = "train/examples_per_second";
    /** The learning rate of a step, when the job reports it. */
    public static final String LEARNING_RATE = "train/learning_rate";
    /** The training loss of an epoch. */
    public static final String EPOCH_LOSS = "epoch/train_loss";
    /** The validation loss of an epoch. */
    public static final String VAL_LOSS = "epoch/validation_loss";
    /** The validation accuracy of an epoch. */
    public static final String VAL_ACCURACY = "epoch/validation_accuracy";

    private static final Logger LOG = LoggerFactory.getLogger(RunRecorder.class);
    private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern(
            "yyyyMMdd-HHmmss");

    private final RunStore store;
    private final String id;
    private final EventFile events;
    private final RunWriter writer;
    private final LongSupplier clock;
    private final long startedMs;
    /** Runs after the end is recorded: closes the store of a run taken over by a driver. */
    private final Runnable afterEnd;
    private boolean ended;

    private RunRecorder(RunStore store, String id, EventFile events, LongSupplier clock,
            long startedMs, Runnable afterEnd) {
        this.afterEnd = afterEnd;
        this.store = store;
        this.id = id;
        this.events = events;
        this.writer = new RunWriter(store, id);
        this.clock = clock;
        this.startedMs = startedMs;
    }

    /**
     * Records a new run of {@code spec}: marks it running in the store and starts its event
     * file with the settings as HParams.
     *
     * @param store where to record it, borrowed
     * @param spec the job
     * @return the recorder, to add to the job's listeners
     */
    public static RunRecorder start(RunStore store, TrainSpec spec) {
        long now = System.currentTimeMillis();
        String id = spec.name() + "-" + LocalDateTime.now().format(ID_TIME) + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
        Map<String, String> texts = new LinkedHashMap<>();
        Map<String, Object> values = new LinkedHashMap<>();
        // a sweep's trial also records its sweep, so %dml runs --where 'sweep = ID' finds it
        for (Option<?> o : Stream.concat(TrainOptions.ALL.stream(),
                Stream.of(TuneOptions.SWEEP)).toList()) {
            Object v = spec.get(o);
            if (v != null) {
                texts.put(o.name(), text(o, v));
                values.put(o.name(), v instanceof Number || v instanceof Boolean ? v
                        : text(o, v));
            }
        }
        Double optionLr = spec.get(TrainOptions.LR);
        if (spec.optimizer() != null && (optionLr == null
                || optionLr.floatValue() != spec.optimizer().learningRate())) {
            // optOptimizer(OptimizerSpec) sets the optimizer past the options: record what ran
            String kind = spec.optimizer().kind().name().toLowerCase(Locale.ROOT);
            String lr = Float.toString(spec.optimizer().learningRate());
            texts.put(TrainOptions.OPTIMIZER.name(), kind);
            values.put(TrainOptions.OPTIMIZER.name(), kind);
            texts.put(TrainOptions.LR.name(), lr);
            values.put(TrainOptions.LR.name(), Double.parseDouble(lr));
        }
        String source;
        long rows;
        List<String> columns;
        String hash = null; // files read on the workers are not read here
        if (spec.files().isPresent()) {
            source = "files";
            rows = spec.files().get().rows();
            columns = spec.columns().features();
        } else {
            source = spec.table().name();
            rows = spec.table().rowCount();
            columns = spec.table().columnNames();
            hash = DataFingerprint.of(spec.table());
        }
        Gson gson = new Gson();
        store.start(new RunStore.RunStart(id, spec.name(), now, gson.toJson(texts), source, rows,
                gson.toJson(columns), hash, DmlBuild.VERSION, DmlBuild.COMMIT,
                spec.checkpointDir().map(p -> p.toAbsolutePath().toString()).orElse(null)));
        EventFile events = EventFile.open(store.folderOf(id), RunStore.localHost(), now / 1e3);
        events.summary(0, now / 1e3, HParams.start(values, now / 1e3, id));
        return new RunRecorder(store, id, events, System::currentTimeMillis, now, () -> { });
    }

    /**
     * Goes on recording a run that another process started (a detached job's driver): this
     * process becomes the one whose death makes the run lost, and a new event file continues
     * its TensorBoard record.
     *
     * @param store where it is recorded; owned by the recorder, closed after the run's end
     * @param id the run
     * @return the recorder
     * @throws DmlException when the store has no such run, or it is not running
     */
    static RunRecorder takeOver(RunStore store, String id) {
        long startedMs = store.adopt(id);
        long now = System.currentTimeMillis();
        EventFile events = EventFile.open(store.folderOf(id), RunStore.localHost(), now / 1e3);
        return new RunRecorder(store, id, events, System::currentTimeMillis, startedMs,
                store::close);
    }

    /**
     * Stops recording here without ending the run, which another process takes over ({@link
     * #takeOver}): closes this recorder's event file. Nothing is recorded by it afterwards.
     */
    synchronized void handOver() {
        ended = true;
        try {
            writer.close();
        } finally {
            events.close();
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> String text(Option<T> option, Object value) {
        return option.type().format((T) value);
    }

    /**
     * Returns the run's id in the store.
     *
     * @return the id
     */
    public String runId() {
        return id;
    }

    /**
     * Writes the records queued so far now, in the calling thread; otherwise they reach the
     * store within {@link RunWriter#EVERY}.
     */
    public void flush() {
        writer.flush();
    }

    @Override
    public void onStart(List<WorkerInfo> workers) {
        // the pid lets a test (or a user) check that a stopped run's workers have ended
        String json = new Gson().toJson(workers.stream().map(w -> Map.of("rank", w.rank(),
                "host", w.host(), "node", w.nodeIp(), "pid", w.pid())).toList());
        long wall = clock.getAsLong();
        writer.add(() -> store.workers(id, json, wall));
    }

    @Override
    public void onStep(StepMetrics step) {
        long wall = step.reportedAtMillis() > 0 ? step.reportedAtMillis() : clock.getAsLong();
        Map<String, Float> scalars = new LinkedHashMap<>();
        scalars.put(LOSS, step.loss());
        scalars.put(THROUGHPUT, (float) step.examplesPerSecond());
        putKnown(scalars, LEARNING_RATE, step.learningRate());
        writer.add(() -> {
            store.step(id, step, wall);
            scalars(step.step(), wall, scalars);
        });
    }

    @Override
    public void onEpoch(EpochMetrics epoch) {
        long wall = clock.getAsLong();
        Map<String, Float> scalars = new LinkedHashMap<>();
        scalars.put(EPOCH_LOSS, epoch.trainLoss());
        putKnown(scalars, VAL_LOSS, epoch.validationLoss());
        putKnown(scalars, VAL_ACCURACY, epoch.validationAccuracy());
        writer.add(() -> {
            store.epoch(id, epoch, wall);
            scalars(epoch.epoch(), wall, scalars);
        });
    }

    /** Records a scalar unless it is NaN: not measured (no validation rows, no schedule). */
    private static void putKnown(Map<String, Float> scalars, String tag, double value) {
        if (!Double.isNaN(value)) {
            scalars.put(tag, (float) value);
        }
    }

    @Override
    public void onRecovery(Recovery r) {
        event("recovery", r.resumedFrom(), String.format(Locale.ROOT, "%s at step %d: resumed"
                + " from step %d (%s), %d steps redone, %.1f s", r.preemption() ? "pre-emption"
                : "lost workers", r.failedAt(), r.resumedFrom(), r.restoredFrom(),
                r.stepsRedone(), r.seconds()) + (r.cause() == null ? "" : "; " + r.cause()));
    }

    @Override
    public void onResize(Resize r) {
        event("resize", r.step(), r.from() + " -> " + r.to() + " workers"
                + (r.cause() == null ? "" : ": " + r.cause()));
    }

    @Override
    public void onNotice(JobNotice n) {
        event("notice", n.step(), Vocabulary.JAVA.render(n.template()));
    }

    private void event(String kind, long step, String detail) {
        long wall = clock.getAsLong();
        writer.add(() -> store.event(id, kind, step, detail, wall));
    }

    @Override
    public void onCost(JobCost cost) {
        long wall = clock.getAsLong();
        writer.add(() -> store.cost(id, cost, wall));
    }

    /** A TensorBoard event; one that cannot be written loses that event only. */
    private void scalars(long step, long wallMs, Map<String, Float> scalars) {
        try {
            events.scalars(step, wallMs / 1e3, scalars);
        } catch (DmlException e) {
            LOG.warn("run {}: {}", id, e.what());
        }
    }

    @Override
    public synchronized void onEnd(TrainResult result) {
        if (!ended) {
            saveModel(result);
        }
        end(result.stopped() && result.stoppedEarlyAfter() == 0 ? RunStatus.STOPPED
                : RunStatus.FINISHED, result.wallSeconds(), null);
    }

    /** Saves the trained model into the run's folder, for {@code TrainResult.open(runId)}. */
    private void saveModel(TrainResult result) {
        Path dir = RunFolders.model(store.folder(), id);
        try {
            result.save(dir);
            writer.add(() -> store.model(id, dir));
        } catch (RuntimeException e) {
            // the job succeeded: its record says why its model is missing, and the job goes on
            event("notice", result.globalSteps(), "the model could not be saved into " + dir
                    + ": " + e.getMessage());
            LOG.warn("run {}: cannot save its model into {}", id, dir, e);
        }
    }

    @Override
    public synchronized void onFailed(DmlException error) {
        end(RunStatus.FAILED, (clock.getAsLong() - startedMs) / 1e3, error.what());
    }

    private void end(RunStatus status, double wallSeconds, String error) {
        if (ended) {
            return;
        }
        ended = true;
        long now = clock.getAsLong();
        try {
            writer.close(); // the queued metrics first, then the end
            store.end(id, status, now, wallSeconds, error);
            events.summary(0, now / 1e3, HParams.end(status == RunStatus.FAILED
                    ? HParams.Status.FAILURE : HParams.Status.SUCCESS, now / 1e3));
        } finally {
            try {
                events.close();
            } finally {
                afterEnd.run();
            }
        }
        LOG.info("run {} {} after {} s", id, status.word(), wallSeconds);
    }

    @Override
    public String toString() {
        return "RunRecorder[" + id + "]";
    }
}

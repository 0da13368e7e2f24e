package dev.dml.ray.runs;

import com.google.gson.Gson;
import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.events.JobCost;
import dev.dml.events.StepMetrics;
import dev.dml.options.Option;
import dev.dml.options.TrainOptions;
import dev.dml.ray.train.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainingListener;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
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
 * <p>The run is marked running when it starts, and finished, stopped or failed when its job
 * ends; if this process dies first it reads as lost, with the metrics recorded until then. The
 * recorder borrows the store; it closes its event file when the job ends.
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
    private final LongSupplier clock;
    private final long startedMs;
    private boolean ended;

    private RunRecorder(RunStore store, String id, EventFile events, LongSupplier clock,
            long startedMs) {
        this.store = store;
        this.id = id;
        this.events = events;
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
        for (Option<?> o : TrainOptions.ALL) {
            Object v = spec.get(o);
            if (v != null) {
                texts.put(o.name(), text(o, v));
                values.put(o.name(), v instanceof Number || v instanceof Boolean ? v
                        : text(o, v));
            }
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
        store.start(id, spec.name(), now, gson.toJson(texts), source, rows,
                gson.toJson(columns), hash);
        EventFile events = EventFile.open(store.folderOf(id), RunStore.localHost(), now / 1e3);
        events.summary(0, now / 1e3, HParams.start(values, now / 1e3, id));
        return new RunRecorder(store, id, events, System::currentTimeMillis, now);
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

    @Override
    public synchronized void onStep(StepMetrics step) {
        long wall = step.reportedAtMillis() > 0 ? step.reportedAtMillis() : clock.getAsLong();
        store.step(id, step, wall);
        Map<String, Float> scalars = new LinkedHashMap<>();
        scalars.put(LOSS, step.loss());
        scalars.put(THROUGHPUT, (float) step.examplesPerSecond());
        if (!Double.isNaN(step.learningRate())) {
            scalars.put(LEARNING_RATE, (float) step.learningRate());
        }
        events.scalars(step.step(), wall / 1e3, scalars);
    }

    @Override
    public synchronized void onEpoch(EpochMetrics epoch) {
        long wall = clock.getAsLong();
        store.epoch(id, epoch, wall);
        Map<String, Float> scalars = new LinkedHashMap<>();
        scalars.put(EPOCH_LOSS, epoch.trainLoss());
        if (!Float.isNaN(epoch.validationLoss())) {
            scalars.put(VAL_LOSS, epoch.validationLoss());
        }
        if (!Double.isNaN(epoch.validationAccuracy())) {
            scalars.put(VAL_ACCURACY, (float) epoch.validationAccuracy());
        }
        events.scalars(epoch.epoch(), wall / 1e3, scalars);
    }

    @Override
    public synchronized void onCost(JobCost cost) {
        store.cost(id, cost, clock.getAsLong());
    }

    @Override
    public synchronized void onEnd(TrainResult result) {
        end(result.stopped() && result.stoppedEarlyAfter() == 0 ? RunStatus.STOPPED
                : RunStatus.FINISHED, result.wallSeconds(), null);
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
            store.end(id, status, now, wallSeconds, error);
            events.summary(0, now / 1e3, HParams.end(status == RunStatus.FAILED
                    ? HParams.Status.FAILURE : HParams.Status.SUCCESS, now / 1e3));
        } finally {
            events.close();
        }
        LOG.info("run {} {} after {} s", id, status.word(), wallSeconds);
    }

    @Override
    public String toString() {
        return "RunRecorder[" + id + "]";
    }
}

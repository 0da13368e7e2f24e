package dev.dml.kernel;

import dev.dml.magics.JobEvents;
import dev.dml.magics.PreparedJob;
import dev.dml.magics.RunningJob;
import dev.dml.magics.TrainRequest;
import dev.dml.magics.live.EpochSample;
import dev.dml.magics.live.StageSample;
import dev.dml.magics.live.StepSample;
import dev.dml.magics.live.WorkerRow;
import dev.dml.ray.collective.WorkerInfo;
import dev.dml.ray.train.EpochMetrics;
import dev.dml.ray.train.PipelineMetrics;
import dev.dml.ray.train.StepMetrics;
import dev.dml.ray.train.TrainJob;
import dev.dml.ray.train.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainingListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A {@code %dml train} job on Ray: its spec before the start, its engine job after. */
final class RayJob implements PreparedJob, RunningJob {

    private final TrainRequest request;
    private final Bridge bridge;
    private final TrainSpec spec;
    private volatile TrainJob job;

    private RayJob(TrainRequest request, Bridge bridge, TrainSpec spec) {
        this.request = request;
        this.bridge = bridge;
        this.spec = spec;
    }

    /** Resolves a request against the notebook's data; starts nothing. */
    static RayJob prepare(TrainRequest request, NotebookData data) {
        Bridge bridge = new Bridge();
        return new RayJob(request, bridge, TrainRequests.spec(request, data, bridge));
    }

    TrainSpec spec() {
        return spec;
    }

    /** Starts the job on a driver; its events go to {@code events} from now on. */
    void start(dev.dml.ray.cluster.DriverProcess driver, JobEvents events) {
        bridge.events = events;
        job = dev.dml.ray.Dml.start(spec, driver);
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public int epochs() {
        return spec.epochs();
    }

    @Override
    public long totalSteps() {
        return (long) spec.stepsPerEpoch() * spec.epochs();
    }

    @Override
    public String description() {
        return String.format("%s on %,d rows x %d features, %d worker%s", describe(spec.model()),
                spec.trainTable().rowCount(), spec.columns().featureCount(), spec.workers(),
                spec.workers() == 1 ? "" : "s");
    }

    private static String describe(dev.dml.ray.model.ModelSpec model) {
        String family = model.family().name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ');
        int[] hidden = model.hidden();
        return hidden.length == 0 ? family : family + " " + java.util.Arrays.toString(hidden);
    }

    @Override
    public TrainRequest request() {
        return request;
    }

    @Override
    public String id() {
        return job.id();
    }

    @Override
    public List<WorkerRow> workers() {
        return rows(job.workers());
    }

    @Override
    public boolean awaitEnd(Duration timeout) throws InterruptedException {
        try {
            job.future().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            return true;
        } catch (ExecutionException failed) {
            return true;
        } catch (TimeoutException running) {
            return false;
        }
    }

    @Override
    public JobOutcome outcome() {
        if (!job.isDone()) {
            throw new IllegalStateException("job " + job.id() + " is still running");
        }
        TrainResult r = job.await();
        return new JobOutcome(r.stopped(), r.wallSeconds(), r);
    }

    @Override
    public void stop() {
        job.stop();
    }

    private static List<WorkerRow> rows(List<WorkerInfo> workers) {
        return workers.stream().map(w -> new WorkerRow(w.rank(), w.host(), w.pid())).toList();
    }

    /** The engine's listener, forwarding to the magics' events once the job starts. */
    private static final class Bridge implements TrainingListener {
        private static final double[] NO_GPU = new double[0];
        volatile JobEvents events;
        private long stepsBefore;

        @Override
        public void onStart(List<WorkerInfo> workers) {
            JobEvents e = events;
            if (e != null) {
                e.started(rows(workers));
            }
        }

        @Override
        public void onStep(StepMetrics m) {
            JobEvents e = events;
            if (e != null) {
                // the engine counts epochs from 0, the dashboard (like its header) from 1
                e.step(new StepSample(m.epoch() + 1, m.step(), m.loss(), m.examplesPerSecond(),
                        m.computeMillis(), m.commMillis(), m.allReduceBytes(), m.cpuPercent(),
                        m.heapBytes(), m.rssBytes(), NO_GPU, m.reportedAtMillis()));
            }
        }

        @Override
        public void onPipeline(PipelineMetrics m) {
            JobEvents e = events;
            if (e == null) {
                return;
            }
            double[] busy = m.busyMillis();
            double[] idle = m.idleMillis();
            List<StageSample> stages = new ArrayList<>(busy.length);
            long share = m.activationBytes() / Math.max(1, busy.length);
            for (int s = 0; s < busy.length; s++) {
                // the step's activation bytes, spread so that the stages add up to the total
                long bytes = s < busy.length - 1 ? share
                        : m.activationBytes() - share * (busy.length - 1);
                stages.add(new StageSample(s, busy[s], idle[s], bytes));
            }
            e.stages(m.step(), stages);
        }

        @Override
        public void onEpoch(EpochMetrics m) {
            JobEvents e = events;
            long ran = m.steps() - stepsBefore;
            stepsBefore = m.steps();
            if (e != null) {
                e.epoch(new EpochSample(m.epoch() + 1, ran, m.trainLoss(), m.seconds(),
                        m.examplesPerSecond(), m.validationLoss(), m.validationAccuracy(),
                        m.validationAuc()));
            }
        }
    }
}

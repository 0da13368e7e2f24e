package dev.dml.magics.live;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.events.EpochMetrics;
import dev.dml.events.RegressionMetrics;
import dev.dml.events.JobCost;
import dev.dml.events.JobNotice;
import dev.dml.events.PipelineMetrics;
import dev.dml.events.ProgressListener;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * Accumulates a job's samples and draws frames. Thread-safe: samples arrive on one thread,
 * frames are drawn on another. Drawing copies what it needs under the lock and renders outside
 * it, so reporting threads never wait on a frame. Series are reduced to at most
 * {@value #MAX_POINTS} points per frame, so a frame costs the same after 100 steps or 100,000.
 */
public final class LiveDashboard implements ProgressListener {

    /** Most points a line series is drawn with. */
    static final int MAX_POINTS = 400;
    /**
     * Steps after the first before an ETA is shown: the first step carries the start-up (JIT,
     * native libraries, first batches), so the rate is timed from its report on.
     */
    static final int ETA_AFTER_STEPS = 5;

    private final String jobName;
    private final int epochs;
    private final long totalSteps;
    private final LongSupplier nanoTime;
    private final String idPrefix;

    private final Series loss = new Series();
    private final Series validationLoss = new Series();
    private final Series examplesPerSecond = new Series();
    private final Series allReduceMiB = new Series();
    private final Series interNodeMiB = new Series();
    private final Series usdSpent = new Series();
    private JobCosts cost = JobCosts.NONE;
    private long firstStep = -1;
    private final WorkerTotals totals = new WorkerTotals();
    private final List<EpochMetrics> epochSamples = new ArrayList<>();
    private final List<String> notices = new ArrayList<>();
    private final Map<Integer, Long> lastStepOfEpoch = new TreeMap<>();
    private List<WorkerInfo> workers = List.of();
    private List<PipelineMetrics.StageTime> stages = List.of();
    private final List<Recovery> recoveries = new ArrayList<>();
    private long stageStep;
    private long startNanos = -1;
    private long firstStepNanos = -1;
    private int epoch;
    private long step;
    private long allReduceTotal;
    private long interNodeTotal;
    private double stepRateSum;
    private long oldestUnshown;
    private volatile boolean dirty = true;

    /**
     * A dashboard for one job.
     *
     * @param jobName the name shown in the header
     * @param epochs the epochs the job will run; 0 when not known
     * @param totalSteps the steps the whole job will run, all epochs; 0 when not known (no ETA)
     */
    public LiveDashboard(String jobName, int epochs, long totalSteps) {
        this(jobName, epochs, totalSteps, System::nanoTime,
                "dml" + UUID.randomUUID().toString().substring(0, 8) + "-");
    }

    /** For tests: a fixed clock and id prefix make frames reproducible. */
    LiveDashboard(String jobName, int epochs, long totalSteps, LongSupplier nanoTime,
            String idPrefix) {
        if (jobName == null || jobName.isBlank() || epochs < 0 || totalSteps < 0) {
            throw new DmlException("A live dashboard needs a job name and non-negative epochs"
                    + " and steps, got '" + jobName + "', " + epochs + ", " + totalSteps + ".",
                    "Pass the job's name, and 0 for an epoch or step count not known yet.");
        }
        this.jobName = jobName;
        this.epochs = epochs;
        this.totalSteps = totalSteps;
        this.nanoTime = nanoTime;
        this.idPrefix = idPrefix;
    }

    /** Records the job's workers (by rank) and starts the clock for elapsed time and ETA. */
    @Override
    public synchronized void onStart(List<WorkerInfo> workers) {
        this.workers = List.copyOf(workers);
        this.startNanos = nanoTime.getAsLong();
        dirty = true;
    }

    /** Adds what one step reported. */
    @Override
    public synchronized void onStep(StepMetrics s) {
        epoch = Math.max(epoch, s.epoch());
        step = Math.max(step, s.step());
        if (firstStep < 0) {
            firstStepNanos = nanoTime.getAsLong();
        }
        firstStep = firstStep < 0 ? s.step() : Math.min(firstStep, s.step());
        lastStepOfEpoch.merge(s.epoch(), s.step(), Math::max);
        loss.add(s.step(), s.loss());
        examplesPerSecond.add(s.step(), s.examplesPerSecond());
        if (Double.isFinite(s.examplesPerSecond())) {
            stepRateSum += s.examplesPerSecond();
        }
        allReduceMiB.add(s.step(), s.allReduceBytes() / Formats.MIB);
        allReduceTotal += s.allReduceBytes();
        interNodeMiB.add(s.step(), s.interNodeBytes() / Formats.MIB);
        interNodeTotal += s.interNodeBytes();
        totals.add(s.workers());
        noteShown(s.reportedAtMillis());
    }

    /** Adds what the end of an epoch reported; its validation loss is drawn at its last step. */
    @Override
    public synchronized void onEpoch(EpochMetrics e) {
        epochSamples.add(e);
        epoch = Math.max(epoch, e.epoch());
        validationLoss.add(lastStepOfEpoch.getOrDefault(e.epoch(), e.steps()),
                e.validationLoss());
        dirty = true;
    }

    /** Replaces the pipeline stages' figures with those of a later step. */
    @Override
    public synchronized void onPipeline(PipelineMetrics p) {
        this.stages = p.stages();
        this.stageStep = p.step();
        dirty = true;
    }

    /**
     * Marks a recovery and takes the job back to the step it restored: the steps after it run
     * again, so their first points leave the plots.
     */
    @Override
    public synchronized void onRecovery(Recovery r) {
        recoveries.add(r);
        long back = r.resumedFrom();
        for (Series series : List.of(loss, validationLoss, examplesPerSecond, allReduceMiB,
                interNodeMiB)) {
            series.dropAfter(back);
        }
        lastStepOfEpoch.values().removeIf(last -> last > back);
        epochSamples.removeIf(e -> e.steps() > back);
        step = Math.min(step, back);
        workers = List.copyOf(r.workers());
        dirty = true;
    }

    /** Shows an elastic job's new size: its workers, and a line that says when and why. */
    @Override
    public synchronized void onResize(Resize r) {
        workers = List.copyOf(r.workers());
        notices.add("Step " + r.step() + ": " + (r.grew() ? "grew" : "shrank") + " from "
                + r.from() + " to " + r.to() + " workers (" + r.cause() + ").");
        dirty = true;
    }

    /** Keeps the job's dollars so far; money spent stays spent, recoveries included. */
    @Override
    public synchronized void onCost(JobCost c) {
        cost = JobCosts.of(c);
        usdSpent.add(c.seconds(), c.usdSpent());
        dirty = true;
    }

    /** Keeps a line the job wants the user to read, in the notebook's words. */
    @Override
    public synchronized void onNotice(JobNotice n) {
        notices.add(Vocabulary.NOTEBOOK.render(n.template()));
        dirty = true;
    }

    /**
     * The lines the job wanted the user to read, in order: a {@code --resume} that found
     * nothing, a checkpoint that could not be written.
     *
     * @return the lines
     */
    public synchronized List<String> notices() {
        return List.copyOf(notices);
    }

    /** True when samples arrived since the last {@link #frame()} (and before the first). */
    public boolean isDirty() {
        return dirty;
    }

    /**
     * The one-line progress of the latest frame's text, without drawing or clearing
     * {@link #isDirty()}: for {@code %dml status} while the live cell keeps drawing.
     *
     * @return e.g. {@code epoch 2/5 · step 120/300 · loss 0.1234 · 1,234 ex/s now · ETA 12 s}
     */
    public synchronized String progress() {
        return snapshot().line();
    }

    /** Draws a frame of everything so far and clears {@link #isDirty()}. */
    public Frame frame() {
        Snapshot snapshot;
        long oldest;
        synchronized (this) {
            snapshot = snapshot();
            oldest = oldestUnshown;
            oldestUnshown = 0;
            dirty = false;
        }
        List<FrameRenderer.Chart> charts = FrameRenderer.charts(snapshot, idPrefix);
        return new Frame(FrameRenderer.svg(snapshot, idPrefix, charts),
                FrameHtml.html(snapshot, charts), snapshot.line(), oldest);
    }

    /**
     * The job's outcome from the samples seen: last loss, last known validation accuracy and
     * AUC (or RMSE, MAE and R² of a regression), mean throughput (over epochs, weighted by
     * their time; over steps when no epoch ended), the last step's throughput, and each
     * worker's mean CPU and peak memory.
     *
     * @param job the job's name as the table shows it
     * @param stopped true when the user stopped the job
     * @param wallSeconds the job's wall time
     */
    public synchronized JobSummary summary(String job, boolean stopped, double wallSeconds) {
        double accuracy = Double.NaN;
        double auc = Double.NaN;
        RegressionMetrics regression = RegressionMetrics.NONE;
        double examples = 0;
        double seconds = 0;
        for (EpochMetrics e : epochSamples) {
            accuracy = Double.isNaN(e.validationAccuracy()) ? accuracy : e.validationAccuracy();
            auc = Double.isNaN(e.validationAuc()) ? auc : e.validationAuc();
            regression = e.validationRegression().known() ? e.validationRegression() : regression;
            examples += e.examplesPerSecond() * e.seconds();
            seconds += e.seconds();
        }
        double rate = seconds > 0 ? examples / seconds
                : examplesPerSecond.size() > 0 ? stepRateSum / examplesPerSecond.size()
                : Double.NaN;
        double finalLoss = loss.size() > 0 ? loss.lastY()
                : epochSamples.isEmpty() ? Double.NaN
                : epochSamples.get(epochSamples.size() - 1).trainLoss();
        double epochsRun = epochs > 0 && totalSteps > 0 && firstStep > 0
                ? (step - firstStep + 1) / ((double) totalSteps / epochs) : Double.NaN;
        return new JobSummary(job, stopped, wallSeconds, step, finalLoss, accuracy, auc, rate,
                totals.stats(workers), recoveries, cost, epochsRun, regression,
                Snapshot.links(workers), examplesPerSecond.lastY());
    }

    private void noteShown(long reportedAtMillis) {
        if (reportedAtMillis > 0 && (oldestUnshown == 0 || reportedAtMillis < oldestUnshown)) {
            oldestUnshown = reportedAtMillis;
        }
        dirty = true;
    }

    /** What a frame shows now; the caller holds this dashboard's lock. */
    Snapshot snapshot() {
        long now = nanoTime.getAsLong();
        double elapsed = startNanos < 0 ? 0 : (now - startNanos) / 1e9;
        long timed = step - firstStep;
        double secondsPerStep = firstStepNanos >= 0 && timed >= ETA_AFTER_STEPS
                && now > firstStepNanos ? (now - firstStepNanos) / 1e9 / timed : Double.NaN;
        return new Snapshot(jobName, epoch, epochs, step, totalSteps, elapsed, loss.lastY(),
                examplesPerSecond.lastY(), allReduceTotal, interNodeTotal,
                loss.points(MAX_POINTS),
                validationLoss.points(MAX_POINTS), examplesPerSecond.points(MAX_POINTS),
                allReduceMiB.points(MAX_POINTS), interNodeMiB.points(MAX_POINTS), workers,
                totals.latestCpu(), totals.latestGpu(), totals.latestRss(), totals.latestHeap(),
                stageStep, stages, List.copyOf(recoveries), List.copyOf(notices), cost,
                usdSpent.points(MAX_POINTS), secondsPerStep);
    }
}

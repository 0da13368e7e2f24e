package dev.dml.tune;

import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.events.JobCost;
import dev.dml.events.ProgressListener;
import dev.dml.events.WorkerInfo;
import dev.dml.options.Choice;
import dev.dml.options.TrialMetric;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs a sweep's trials, at most {@code concurrent} at once, each an ordinary job started by a
 * {@link TrialLauncher}. With {@link Asha}, a trial whose metric falls below a rung's cutoff is
 * stopped through its job's stop path, which ends its workers; the next trial takes its place.
 * A {@code --budget} (dollars) or {@code --deadline} (seconds) holds for the whole sweep: when
 * reached, the running trials stop and no more start. An interrupt of the thread that runs the
 * sweep stops every running trial before {@link #run} returns.
 */
public final class Sweep {

    /** How long the loop sleeps when nothing happens: trials report a few times a second. */
    private static final Duration POLL = Duration.ofMillis(200);
    /** How long an interrupted sweep waits for its trials' workers to end. */
    static final Duration STOP_LIMIT = Duration.ofSeconds(120);

    private final String id;
    private final List<Trial> trials;
    private final TrialMetric metric;
    private final Asha asha;
    private final int concurrent;
    private final double budgetUsd;
    private final double deadlineSeconds;
    private final LinkedBlockingQueue<Object> wake = new LinkedBlockingQueue<>();
    private volatile String limit;

    /**
     * A sweep ready to run.
     *
     * @param id the sweep's id, recorded with each trial's run
     * @param trials its trials, in the order they start
     * @param metric the epoch metric ({@code --metric})
     * @param asha the scheduler, or null to run every trial to its end
     * @param concurrent how many trials run at once
     * @param budgetUsd the sweep's dollars, or NaN for no limit
     * @param deadlineSeconds the sweep's wall time, or NaN for no limit
     */
    public Sweep(String id, List<Trial> trials, TrialMetric metric, Asha asha, int concurrent,
            double budgetUsd, double deadlineSeconds) {
        this.id = id;
        this.trials = List.copyOf(trials);
        this.metric = metric;
        this.asha = asha;
        this.concurrent = Math.max(1, concurrent);
        this.budgetUsd = budgetUsd;
        this.deadlineSeconds = deadlineSeconds;
    }

    /** @return the sweep's id */
    public String id() {
        return id;
    }

    /** @return its trials */
    public List<Trial> trials() {
        return trials;
    }

    /** @return the metric trials are ranked by */
    public String metric() {
        return metric.word();
    }

    /** @return how many trials run at once */
    public int concurrent() {
        return concurrent;
    }

    /** @return why the sweep stopped before its last trial, or null */
    public String limit() {
        return limit;
    }

    /**
     * Tells whether a higher value of a metric is better.
     *
     * @param metric the metric
     * @return true for accuracy, false for a loss
     */
    public static boolean higherIsBetter(TrialMetric metric) {
        return metric == TrialMetric.VAL_ACCURACY;
    }

    /**
     * Reads a metric from an epoch's metrics.
     *
     * @param metric the metric
     * @param e the epoch
     * @return its value, NaN when the epoch has none
     */
    public static double value(TrialMetric metric, EpochMetrics e) {
        return switch (metric) {
            case VAL_ACCURACY -> e.validationAccuracy();
            case VAL_LOSS -> e.validationLoss();
            case TRAIN_LOSS -> e.trainLoss();
        };
    }

    /**
     * Reads a metric named by its word from an epoch's metrics.
     *
     * @param metric {@code val_accuracy}, {@code val_loss} or {@code train_loss}
     * @param e the epoch
     * @return its value, NaN when the epoch has none
     * @throws IllegalArgumentException for any other word
     */
    public static double value(String metric, EpochMetrics e) {
        TrialMetric m = Choice.of(TrialMetric.class, metric);
        if (m == null) {
            throw new IllegalArgumentException(metric);
        }
        return value(m, e);
    }

    /**
     * Returns the trials best first: by their metric after their last epoch; trials without
     * one last.
     *
     * @return the ranking
     */
    public List<Trial> ranked() {
        Comparator<Trial> byMetric = Comparator.comparingDouble(t -> higherIsBetter(metric)
                ? -t.last() : t.last());
        return trials.stream().sorted(Comparator.comparing((Trial t) -> Double.isNaN(t.last()))
                .thenComparing(byMetric)).toList();
    }

    /**
     * Returns the best trial that produced a result.
     *
     * @return the trial, or empty when none did
     */
    public Optional<Trial> best() {
        return ranked().stream().filter(t -> t.result() != null && !Double.isNaN(t.last()))
                .findFirst();
    }

    /**
     * Runs the trials until each has ended, the budget or deadline is reached, or the thread
     * is interrupted.
     *
     * @param launcher starts each trial's job
     * @param changed called on this thread whenever a trial may have changed, to redraw
     * @throws InterruptedException when interrupted: every running trial has been stopped
     */
    public void run(TrialLauncher launcher, Runnable changed) throws InterruptedException {
        long t0 = System.nanoTime();
        Map<Trial, TrialLauncher.Running> running = new LinkedHashMap<>();
        List<Thread> stopping = new ArrayList<>();
        int next = 0;
        try {
            while (true) {
                if (limit == null) {
                    limit = limitReached((System.nanoTime() - t0) / 1e9);
                    if (limit != null) {
                        running.forEach((t, r) -> stopping.add(stopAsync(t, r)));
                    }
                }
                while (limit == null && running.size() < concurrent && next < trials.size()) {
                    Trial t = trials.get(next++);
                    start(launcher, t).ifPresent(r -> running.put(t, r));
                    changed.run();
                }
                for (Map.Entry<Trial, TrialLauncher.Running> e : running.entrySet()) {
                    Trial t = e.getKey();
                    if (t.stopAsked() && t.status() == TrialStatus.RUNNING) {
                        t.status(TrialStatus.STOPPED_EARLY); // ended below, once its job has
                        stopping.add(stopAsync(t, e.getValue()));
                    }
                }
                boolean ended = running.entrySet().removeIf(e -> finished(e.getKey(),
                        e.getValue()));
                if (running.isEmpty() && (next >= trials.size() || limit != null)) {
                    break;
                }
                if (ended) {
                    changed.run();
                }
                if (wake.poll(POLL.toMillis(), TimeUnit.MILLISECONDS) != null) {
                    changed.run();
                }
            }
        } catch (InterruptedException interrupt) {
            limit = "interrupted";
            running.forEach((t, r) -> stopping.add(stopAsync(t, r)));
            join(stopping);
            running.forEach(this::finishedQuietly);
            throw interrupt;
        } finally {
            for (int i = next; i < trials.size(); i++) {
                trials.get(i).status(TrialStatus.NOT_RUN);
            }
            changed.run();
        }
    }

    private Optional<TrialLauncher.Running> start(TrialLauncher launcher, Trial t) {
        t.status(TrialStatus.RUNNING);
        try {
            return Optional.of(launcher.start(t, listener(t)));
        } catch (RuntimeException e) {
            t.end(TrialStatus.FAILED, null, line(e));
            return Optional.empty();
        }
    }

    private ProgressListener listener(Trial t) {
        return new ProgressListener() {
            @Override
            public void onStart(List<WorkerInfo> workers) {
                t.workers(workers.size());
                wake.offer(t);
            }

            @Override
            public void onEpoch(EpochMetrics e) {
                double v = value(metric, e);
                t.epoch(e.epoch(), v, e.seconds());
                if (asha != null && asha.shouldStop(t.id(), e.epoch(), v)) {
                    t.askStop();
                }
                wake.offer(t);
            }

            @Override
            public void onCost(JobCost c) {
                t.cost(c.usdSpent(), c.priced());
            }
        };
    }

    /** Stops a trial on a thread of its own, so the others go on meanwhile. */
    private static Thread stopAsync(Trial t, TrialLauncher.Running r) {
        Thread thread = new Thread(r::stop, "dml-sweep-stop-" + t.id());
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void join(List<Thread> threads) {
        long end = System.nanoTime() + STOP_LIMIT.toNanos();
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, (end - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException again) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Ends a trial whose job has ended; false while it runs. */
    private boolean finished(Trial t, TrialLauncher.Running r) {
        try {
            if (!r.awaitEnd(Duration.ZERO)) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        try {
            Object result = r.result();
            // a stop that came as the job ran its last epoch leaves it done
            TrialStatus s = !r.stopped() ? TrialStatus.DONE
                    : t.status() == TrialStatus.STOPPED_EARLY ? TrialStatus.STOPPED_EARLY
                    : TrialStatus.STOPPED;
            t.end(s, result, null);
        } catch (RuntimeException e) {
            t.end(TrialStatus.FAILED, null, line(e));
        }
        return true;
    }

    private void finishedQuietly(Trial t, TrialLauncher.Running r) {
        if (!finished(t, r)) {
            t.end(TrialStatus.STOPPED, null, "still stopping after " + STOP_LIMIT.toSeconds()
                    + " s");
        }
    }

    private String limitReached(double seconds) {
        if (!Double.isNaN(deadlineSeconds) && seconds >= deadlineSeconds) {
            return "its {deadline} of " + Math.round(deadlineSeconds) + " s was reached";
        }
        if (Double.isNaN(budgetUsd)) {
            return null;
        }
        double spent = 0;
        for (Trial t : trials) {
            if (t.status() != TrialStatus.WAITING && !t.priced()) {
                return "its nodes have no price, so its {budget} cannot be kept (price them"
                        + " with %dml cluster price, or leave {budget} out)";
            }
            spent += t.usd();
        }
        return spent >= budgetUsd ? String.format(java.util.Locale.ROOT, "its {budget} of"
                + " $%.2f was reached ($%.4f spent)", budgetUsd, spent) : null;
    }

    private static String line(RuntimeException e) {
        String m = e instanceof DmlException d ? d.what() : String.valueOf(e.getMessage());
        return DmlException.firstLine(m == null ? e.toString() : m);
    }
}

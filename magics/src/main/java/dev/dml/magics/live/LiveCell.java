package dev.dml.magics.live;

import dev.dml.DmlException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The in-place live output of one job: one display id, a first {@code display} at once, then
 * {@code update}s from a daemon thread whenever the dashboard has new samples, at most one per
 * {@code minInterval}. A sink or frame that throws is logged and skipped; the next change is
 * published again. {@link #close()} stops the thread and publishes the last frame.
 *
 * <p>Drawing competes with the job's workers for the machine's cores, so the cell also keeps
 * its own CPU use under {@value #CPU_SHARE_PERCENT}% of one core: when a frame costs more, the
 * next one waits longer than {@code minInterval} (a frame of 10 ms CPU every 0.5 s).
 */
public final class LiveCell implements AutoCloseable {

    private static final System.Logger LOG = System.getLogger(LiveCell.class.getName());
    /** The most of one core that drawing and sending frames may take. */
    static final int CPU_SHARE_PERCENT = 2;
    /** However costly frames get, the plot moves at least this often. */
    private static final long MAX_INTERVAL_NANOS = 750_000_000L;
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final LiveDashboard dashboard;
    private final DisplaySink sink;
    private final long intervalNanos;
    private final int cpuSharePercent;
    private final String displayId = "dml-live-" + UUID.randomUUID();
    private final Object wake = new Object();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread thread;
    private boolean displayed;
    private int updates;
    private long[] latencies = new long[16];
    private int latencyCount;
    private int failures;
    private volatile long frameCpuNanos;
    private long drawCpuNanos;

    /**
     * Shows the dashboard's first frame at once and starts redrawing.
     *
     * @param dashboard the job's dashboard; this cell reads it, the caller keeps feeding it
     * @param sink where frames go
     * @param minInterval the least time between two updates; a few hundred milliseconds keeps
     *     a notebook responsive
     */
    public LiveCell(LiveDashboard dashboard, DisplaySink sink, Duration minInterval) {
        this(dashboard, sink, minInterval, CPU_SHARE_PERCENT);
    }

    /** For tests: {@code cpuSharePercent} 100 turns the CPU budget off. */
    LiveCell(LiveDashboard dashboard, DisplaySink sink, Duration minInterval,
            int cpuSharePercent) {
        if (minInterval.isNegative() || minInterval.isZero()) {
            throw new DmlException("The live update interval must be positive,"
                    + " was " + minInterval + ".", "Pass a duration such as 250 ms.");
        }
        this.dashboard = dashboard;
        this.sink = sink;
        this.intervalNanos = minInterval.toNanos();
        this.cpuSharePercent = cpuSharePercent;
        publish();
        thread = new Thread(this::run, "dml-live-" + displayId.substring(9, 17));
        thread.setDaemon(true);
        thread.start();
    }

    /** The display id every frame of this cell is shown under. */
    public String displayId() {
        return displayId;
    }

    /** How many update messages were sent so far (the first display not counted). */
    public synchronized int updates() {
        return updates;
    }

    /**
     * For each published frame that showed reported samples: the publish time minus the
     * earliest report time among them, in milliseconds.
     */
    public synchronized long[] latenciesMillis() {
        return Arrays.copyOf(latencies, latencyCount);
    }

    /**
     * The CPU time spent drawing and sending frames so far: what the live plot costs the
     * machine the job shares.
     *
     * @return milliseconds of this cell's thread CPU time
     */
    public synchronized double drawCpuMillis() {
        return drawCpuNanos / 1e6;
    }

    /** Stops redrawing and publishes the final frame if anything changed; idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        synchronized (wake) {
            wake.notifyAll();
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (dashboard.isDirty()) {
            publish();
        }
    }

    private void run() {
        long last = System.nanoTime();
        long poll = Math.max(1, intervalNanos / 5);
        while (!closed.get() && !Thread.currentThread().isInterrupted()) {
            long interval = interval(intervalNanos, frameCpuNanos, cpuSharePercent);
            long wait = dashboard.isDirty() ? last + interval - System.nanoTime() : poll;
            if (wait > 0) {
                sleep(wait);
                continue;
            }
            publish();
            last = System.nanoTime();
        }
    }

    /** Waits up to {@code nanos}, or until {@link #close()} wakes it. */
    private void sleep(long nanos) {
        synchronized (wake) {
            if (closed.get()) {
                return;
            }
            try {
                wake.wait(nanos / 1_000_000, (int) (nanos % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // ends the loop; close() still publishes
            }
        }
    }

    /** Draws and sends one frame; the first successful send is a display, later ones update. */
    private synchronized void publish() {
        long cpu = cpuNanos();
        try {
            Frame f = dashboard.frame();
            if (displayed) {
                sink.update(displayId, f);
                updates++;
            } else {
                sink.display(displayId, f);
                displayed = true;
            }
            if (f.oldestUnshownReportMillis() > 0) {
                recordLatency(System.currentTimeMillis() - f.oldestUnshownReportMillis());
            }
            long spent = cpuNanos() - cpu;
            drawCpuNanos += spent;
            // a moving average, so one slow frame (a GC, a cold JIT) does not stall the plot;
            // the first frame pays for class loading and does not count
            if (updates > 0) {
                frameCpuNanos = frameCpuNanos == 0 ? spent : (frameCpuNanos * 3 + spent) / 4;
            }
        } catch (RuntimeException e) {
            // The job must keep running when the notebook side fails; log the first few only.
            if (failures++ < 3) {
                LOG.log(System.Logger.Level.WARNING, "Live output of " + displayId
                        + " could not be shown; later frames will try again", e);
            }
        }
    }

    /**
     * The wait before the next frame: at least {@code minNanos}, and long enough that frames of
     * {@code frameCpuNanos} take at most {@code sharePercent}% of a core, but never over 750 ms.
     */
    static long interval(long minNanos, long frameCpuNanos, int sharePercent) {
        return Math.max(minNanos, Math.min(Math.max(minNanos, MAX_INTERVAL_NANOS),
                frameCpuNanos * 100 / sharePercent));
    }

    private static long cpuNanos() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime()
                : System.nanoTime();
    }

    private void recordLatency(long millis) {
        if (latencyCount == latencies.length) {
            latencies = Arrays.copyOf(latencies, latencyCount * 2);
        }
        latencies[latencyCount++] = millis;
    }
}

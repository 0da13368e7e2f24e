package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.cost.CostMeter;
import dev.dml.cost.Limits;
import dev.dml.events.JobCost;
import dev.dml.events.JobNotice;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.WorkerInfo;
import java.io.Serializable;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;

/**
 * Counts a job's dollars and enforces its {@code --budget} and {@code --deadline}: it prices
 * the nodes the workers occupy when they start and after each recovery, sends a {@link JobCost}
 * after each call to the workers, and lets each call run only the steps that fit at the pace
 * measured so far (half of them: see {@link #stepsUntilDue}). When no step fits, {@link
 * #stopReason} says why, and the runner checkpoints and stops.
 */
final class CostListener implements DriverListener {

    private static final String PRICE_IT = "Price the nodes with %dml cluster price"
            + " INSTANCE-TYPE (or --usd-per-hour X), or run on nodes with dml.dev labels.";

    private final Limits limits;
    private final Function<List<WorkerInfo>, JobRate> rates;
    private final Consumer<Serializable> emit;
    private final LongSupplier clock;
    private final CostMeter meter = new CostMeter();
    private JobRate rate;
    private long startNanos;
    private long lastNanos;
    private long callNanos;
    private double pace = Double.NaN;
    private long step;

    /**
     * @param limits the job's budget and deadline
     * @param rates prices the nodes of a set of workers
     * @param emit sends events to the kernel
     * @param clock {@link System#nanoTime()}, or a test's clock
     */
    CostListener(Limits limits, Function<List<WorkerInfo>, JobRate> rates,
            Consumer<Serializable> emit, LongSupplier clock) {
        this.limits = limits;
        this.rates = rates;
        this.emit = emit;
        this.clock = clock;
    }

    @Override
    public void onStart(List<WorkerInfo> workers) {
        start(workers, 0);
    }

    @Override
    public void onResize(Resize resize) {
        workers(resize.workers(), resize.step());
    }

    @Override
    public void onRecovery(Recovery recovery) {
        workers(recovery.workers(), recovery.resumedFrom());
    }

    /**
     * Prices the workers' nodes and starts the meter; a budget on nodes without a known price
     * fails here, before any step, since it could never stop the job.
     */
    void start(List<WorkerInfo> workers, long atStep) {
        rate = rates.apply(workers);
        if (!Double.isNaN(limits.budgetUsd()) && !(rate.usdPerHour() > 0)) {
            throw new DmlException("{budget} needs the job's nodes priced, and "
                    + (rate.problem().isEmpty() ? "they are not (" + rate.nodes() + ")."
                            : rate.problem()), PRICE_IT);
        }
        if (!rate.problem().isEmpty()) {
            emit.accept(new JobNotice(atStep, "The job's cost is not known: " + rate.problem()
                    + " " + PRICE_IT));
        }
        long now = clock.getAsLong();
        startNanos = now;
        lastNanos = -1;
        callNanos = now;
        step = atStep;
        meter.start(now, usd());
        emitCost(now);
    }

    /** After a recovery or a resize: the workers may sit on other nodes, at another price. */
    void workers(List<WorkerInfo> workers, long atStep) {
        rate = rates.apply(workers);
        long now = clock.getAsLong();
        meter.setRate(now, usd());
        lastNanos = -1; // the recovery's time is no step's pace
        callNanos = now;
        step = atStep;
        emitCost(now);
    }

    /**
     * Half the steps that still fit (rounded up): a call that runs slower than the pace so far
     * cannot run past the limit, and the last calls before it run one step each, so the job
     * overshoots by at most the one step whose pace it could not know.
     */
    @Override
    public long stepsUntilDue(long atStep) {
        long now = clock.getAsLong();
        callNanos = now;
        long fit = limits.stepsThatFit(meter.spent(now), usd(), seconds(now), pace);
        return fit == Long.MAX_VALUE ? fit : Math.max(1, fit - fit / 2);
    }

    @Override
    public String stopReason(long atStep) {
        long now = clock.getAsLong();
        double spent = meter.spent(now);
        return limits.stepsThatFit(spent, usd(), seconds(now), pace) > 0 ? null
                : limits.reason(spent, usd(), seconds(now), pace);
    }

    @Override
    public void onSteps(StrategyWorkers plan, StepChunk chunk, long atStep) {
        long now = clock.getAsLong();
        int n = chunk.steps().size();
        if (n > 0) {
            // the wall time between calls, so validation and checkpoints count into the pace;
            // the first call after a start or a recovery from its own start (loading the
            // shards and restoring state are no step's pace)
            pace = (now - (lastNanos < 0 ? callNanos : lastNanos)) / 1e9 / n;
            lastNanos = now;
        }
        step = atStep;
        emitCost(now);
    }

    /** Sends the job's final figures. */
    void end(long atStep) {
        step = atStep;
        emitCost(clock.getAsLong());
    }

    private double usd() {
        return Double.isNaN(rate.usdPerHour()) ? 0 : rate.usdPerHour();
    }

    private double seconds(long now) {
        return (now - startNanos) / 1e9;
    }

    private void emitCost(long now) {
        emit.accept(new JobCost(step, rate.usdPerHour(), meter.spent(now), seconds(now), pace,
                rate.priced(), rate.spot(), rate.nodes()));
    }
}

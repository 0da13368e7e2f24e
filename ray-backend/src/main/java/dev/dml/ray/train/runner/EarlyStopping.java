package dev.dml.ray.train.runner;

import dev.dml.events.EpochMetrics;
import dev.dml.events.JobNotice;
import java.io.Serializable;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * {@code --early-stop PATIENCE}, in the driver: after each validated epoch, finds the epoch
 * with the lowest validation loss so far and says to stop once {@code PATIENCE} epochs have
 * passed without a lower one (as Keras's {@code EarlyStopping(monitor="val_loss")}). It keeps a
 * copy of the parameters of the best epoch, which the result then holds, whether the job
 * stopped early or ran every epoch. The best epoch is read from the epochs kept so far, so
 * epochs a recovery runs again count once.
 */
final class EarlyStopping implements DriverListener {

    private final int patience;
    private final JobHistory history;
    private final Supplier<float[]> parameters;
    private final Consumer<Serializable> emit;
    private float[] bestParameters;
    private int bestEpoch;
    private float bestLoss = Float.NaN;
    private int stoppedAfter;

    /**
     * @param patience epochs without a better validation loss, at least 1
     * @param history the job's kept epochs, which hears each epoch before this listener
     * @param parameters the whole model's parameters now, fetched only for a best epoch
     * @param emit sends the notice of the stop
     */
    EarlyStopping(int patience, JobHistory history, Supplier<float[]> parameters,
            Consumer<Serializable> emit) {
        this.patience = patience;
        this.history = history;
        this.parameters = parameters;
        this.emit = emit;
    }

    @Override
    public void onEpoch(EpochMetrics epoch) {
        if (stoppedAfter == 0 && afterEpoch(history.epochs(), parameters)) {
            emit.accept(new JobNotice(epoch.steps(), notice()));
        }
    }

    @Override
    public boolean finishedEarly() {
        return stoppedAfter > 0;
    }

    /**
     * Reads the epoch that just ended, the last of {@code epochs}; copies the parameters when
     * it is the best so far.
     *
     * @param epochs every epoch kept so far, in order
     * @param parameters the whole model's parameters now, fetched only when needed
     * @return whether the job stops now
     */
    boolean afterEpoch(List<EpochMetrics> epochs, Supplier<float[]> parameters) {
        EpochMetrics last = epochs.get(epochs.size() - 1);
        EpochMetrics best = null;
        for (EpochMetrics e : epochs) {
            // strictly lower wins: the first of equal losses stays the best
            if (Float.isFinite(e.validationLoss())
                    && (best == null || e.validationLoss() < best.validationLoss())) {
                best = e;
            }
        }
        if (best == last) {
            bestParameters = parameters.get();
            bestEpoch = last.epoch();
            bestLoss = last.validationLoss();
        }
        int since = last.epoch() - (best == null ? epochs.get(0).epoch() - 1 : best.epoch());
        if (since >= patience) {
            stoppedAfter = last.epoch();
            return true;
        }
        return false;
    }

    /**
     * Returns the parameters the result keeps: the best epoch's, else {@code last}.
     *
     * @param last the parameters at the end of the job
     * @return the parameters to keep
     */
    float[] kept(float[] last) {
        return bestParameters != null ? bestParameters : last;
    }

    /** @return the epoch whose parameters are kept, or 0 when none was validated */
    int bestEpoch() {
        return bestParameters != null ? bestEpoch : 0;
    }

    /** @return the epoch after which the job stopped early, or 0 when it did not */
    int stoppedAfter() {
        return stoppedAfter;
    }

    /** What the cell is told when the job stops early. */
    String notice() {
        return "{early-stop}: the validation loss has not improved for " + patience
                + (patience == 1 ? " epoch" : " epochs") + "; stopped after epoch "
                + stoppedAfter + (bestEpoch() == 0 ? ", keeping its parameters (no epoch had a"
                + " finite validation loss)." : ", keeping the parameters of epoch " + bestEpoch
                + " (validation loss " + bestLoss + ").");
    }
}

package dev.dml.ray.train.recovery;

import dev.dml.events.Recovery;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's recoveries from lost or pre-empted workers, in order, and their sums: failures and
 * pre-emptions counted apart, the time spent recovering and the steps run again. Immutable; the
 * part of a {@link dev.dml.ray.train.result.TrainResult} its recovery statistics come from.
 */
public final class RecoveryStats {

    private final ArrayList<Recovery> recoveries;

    public RecoveryStats(List<Recovery> recoveries) {
        this.recoveries = new ArrayList<>(recoveries);
    }

    /** The recoveries, in order, as saved: not copied. */
    public ArrayList<Recovery> list() {
        return recoveries;
    }

    /** The times workers were lost (crashes, lost nodes). */
    public int failures() {
        return (int) recoveries.stream().filter(r -> !r.preemption()).count();
    }

    /** The times workers left on a pre-emption notice. */
    public int preemptions() {
        return recoveries.size() - failures();
    }

    /** Seconds from noticing each loss to restored workers, summed. */
    public double seconds() {
        return recoveries.stream().mapToDouble(Recovery::seconds).sum();
    }

    /** The steps that ran again after the recoveries, summed. */
    public long stepsRedone() {
        return recoveries.stream().mapToLong(Recovery::stepsRedone).sum();
    }
}

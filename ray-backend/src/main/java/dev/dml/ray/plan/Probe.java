package dev.dml.ray.plan;

import dev.dml.events.WorkerInfo;
import java.util.List;
import java.util.Locale;

/**
 * What one probe measured: the job cut to {@code steps} steps of one epoch on {@code workers}
 * workers, start to end, as the whole job would run it.
 *
 * <p>The model of the whole job: it runs what the probe ran (start-up, data shipping, the
 * warm-up steps, one evaluation, shut-down) once, plus every further step at the steady step
 * time, plus one more evaluation per further epoch. A step's time is its compute (forward and
 * backward of one batch) and its all-reduce (the gradient bytes over the links' measured
 * rate), both measured, not assumed.
 *
 * @param workers the workers
 * @param steps the steps it trained
 * @param wallSeconds its wall time, from submission to result
 * @param stepSeconds the median wall time of a steady step (after the warm-up)
 * @param evalSeconds the time from the last step to the end of the epoch: the evaluation
 * @param computeMillis the median compute time of a steady step, slowest worker
 * @param commMillis the median all-reduce time of a steady step, slowest worker
 * @param bytesPerStep the all-reduce bytes of one step, all workers
 * @param placed where the workers ran
 */
record Probe(int workers, int steps, double wallSeconds, double stepSeconds,
        double evalSeconds, double computeMillis, double commMillis, long bytesPerStep,
        List<WorkerInfo> placed) {

    /**
     * Predicts the whole job's wall time.
     *
     * @param epochs the job's epochs
     * @param stepsPerEpoch its steps per epoch at this size
     * @return seconds
     */
    double predict(int epochs, int stepsPerEpoch) {
        long further = (long) epochs * stepsPerEpoch - steps;
        return wallSeconds + further * stepSeconds + (epochs - 1) * evalSeconds;
    }

    /** One line on where the prediction comes from. */
    String basis() {
        String comm = commMillis > 0 && bytesPerStep > 0
                ? String.format(Locale.ROOT, ", all-reduce %.1f ms for %,d KB (%.0f MB/s)",
                        commMillis, bytesPerStep / workers / 1024,
                        bytesPerStep / (double) workers / (commMillis / 1e3) / 1e6)
                : "";
        return String.format(Locale.ROOT, "probe: %d steps in %.1f s; %.1f ms/step (compute"
                + " %.1f ms%s), evaluation %.1f s", steps, wallSeconds, stepSeconds * 1e3,
                computeMillis, comm, evalSeconds);
    }
}

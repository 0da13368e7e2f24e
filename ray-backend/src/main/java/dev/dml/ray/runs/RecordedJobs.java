package dev.dml.ray.runs;

import dev.dml.DmlException;
import dev.dml.events.ProgressListener;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.TrainSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts jobs recorded in the run store by default: {@code Dml.train}, {@code Dml.start} and
 * {@code %dml train} start every job here, which records it in {@link RunStore#open()} unless
 * its spec says {@code --no-record} ({@code opt(TrainOptions.RECORD, false)}).
 */
public final class RecordedJobs {

    private RecordedJobs() {}

    /**
     * Starts a job in a driver, recorded unless its spec turns recording off.
     *
     * @param spec the job
     * @param driver the driver, borrowed
     * @param extra receive the job's progress too
     * @param onEnd run after the job ends (closes what the caller opened for it)
     * @return the running job
     * @throws DmlException when the run store cannot be opened: the job does not start
     */
    public static TrainJob start(TrainSpec spec, DriverProcess driver,
            List<ProgressListener> extra, Runnable onEnd) {
        if (!spec.get(TrainOptions.RECORD)) {
            return TrainJob.start(spec, driver, extra, onEnd);
        }
        RunStore store;
        try {
            store = RunStore.open();
        } catch (DmlException e) {
            throw new DmlException(e.what(), "Set DML_RUNS_DIR to a writable folder, or turn"
                    + " recording off: --no-record in a cell, opt(TrainOptions.RECORD, false)"
                    + " in Java.", e);
        }
        RunRecorder run = null;
        try {
            run = RunRecorder.start(store, spec);
            List<ProgressListener> all = new ArrayList<>(extra);
            all.add(run);
            return TrainJob.start(spec, driver, all, () -> {
                try {
                    store.close();
                } finally {
                    onEnd.run();
                }
            });
        } catch (RuntimeException e) {
            try {
                if (run != null) {
                    run.onFailed(e instanceof DmlException d ? d : new DmlException(
                            "The job did not start: " + e + ".", "See the kernel log.", e));
                }
            } finally {
                store.close();
            }
            throw e;
        }
    }
}

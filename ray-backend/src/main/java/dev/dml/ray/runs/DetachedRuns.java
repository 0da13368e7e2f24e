package dev.dml.ray.runs;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.train.runner.DetachedJob;
import dev.dml.ray.train.TrainSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Jobs that outlive the kernel: {@link #start} hands a job to a driver process of its own on
 * an external cluster, which records it in the run store and keeps running after the kernel
 * has gone; {@link RunFollower} follows it from any later kernel; {@link #stop} asks it to stop.
 *
 * <pre>{@code
 * try (RayCluster cluster = RayCluster.open(ClusterSpec.builder().optAddress(head).build())) {
 *     String run = DetachedRuns.start(spec, cluster);   // returns once the driver has it
 * }                                                     // the job keeps training
 * TrainResult later = TrainResult.open(run);            // once it has ended
 * }</pre>
 */
public final class DetachedRuns {

    /** The file in a run's folder that asks its detached driver to stop the job. */
    static final String STOP_FILE = "stop-requested";
    /** How long the new driver may take to take the run over. */
    private static final Duration TAKE_OVER = Duration.ofSeconds(120);

    private DetachedRuns() {}

    /**
     * Starts a job in a driver of its own that outlives this JVM, recorded in the default run
     * store ({@link RunStore#defaultFolder()}); returns once that driver records it.
     *
     * @param spec the job
     * @param cluster an external cluster (one this JVM did not start), borrowed
     * @return the run's id in the store
     * @throws DmlException on the embedded cluster, which ends with this JVM; when the spec
     *     turns recording off; when the driver cannot start
     */
    public static String start(TrainSpec spec, RayCluster cluster) {
        if (cluster.isEmbedded()) {
            throw embeddedRefused();
        }
        if (!spec.get(TrainOptions.RECORD)) {
            throw new DmlException("{detach} follows the job through its run record, and"
                    + " {record=false} keeps none.", "Drop {record=false} to detach the job.");
        }
        RunStore store = RunStore.open(RunStore.defaultFolder());
        RunRecorder recorder = null;
        DriverProcess driver = null;
        try {
            recorder = RunRecorder.start(store, spec);
            driver = cluster.openDriver();
            if ("local".equals(driver.address())) {
                throw new DmlException("{detach} needs a Ray cluster; this driver runs in Ray's"
                        + " LOCAL mode, in one process.", "Use a cluster started with"
                        + " 'ray start --head' ({cluster=HOST:PORT}).");
            }
            String id = recorder.runId();
            DetachedJob job = DetachedJob.of(spec, id, new DriverRecord(store.folder(), id));
            recorder.handOver();
            store.event(id, RunFollower.DETACHED, (long) spec.stepsPerEpoch() * spec.epochs(),
                    "driver pid " + driver.pid() + " on " + cluster.address() + ", log "
                    + driver.log(), System.currentTimeMillis());
            CompletableFuture<Void> taken = new CompletableFuture<>();
            CompletableFuture<String> end = driver.submit(job, event -> {
                if (DetachedJob.TAKEN_OVER.equals(event)) {
                    taken.complete(null);
                }
            });
            end.whenComplete((r, e) -> taken.completeExceptionally(e != null ? e
                    : new IllegalStateException("ended before it took the run over")));
            awaitTakeOver(taken, driver);
            driver.release();
            return id;
        } catch (RuntimeException e) {
            if (driver != null) {
                driver.close();
            }
            if (recorder != null) {
                store.end(recorder.runId(), RunStatus.FAILED, System.currentTimeMillis(), 0,
                        e.getMessage());
            }
            throw e;
        } finally {
            store.close();
        }
    }

    /**
     * The one line that refuses {@code --detach} on the embedded cluster, which ends with the
     * kernel.
     *
     * @return the exception to throw
     */
    public static DmlException embeddedRefused() {
        return new DmlException("{detach} needs a cluster that outlives this kernel, and the"
                + " embedded one stops with it.", "Start a head with 'ray start --head' and use"
                + " it ({cluster=HOST:PORT}), then detach the job there.");
    }

    private static void awaitTakeOver(CompletableFuture<Void> taken, DriverProcess driver) {
        try {
            taken.get(TAKE_OVER.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof DmlException d ? d : new DmlException(
                    "The detached job's driver failed: " + e.getCause() + ".",
                    "See its log " + driver.log() + ".", e.getCause());
        } catch (TimeoutException e) {
            throw new DmlException("The detached job's driver did not take the run over within "
                    + TAKE_OVER.toSeconds() + " s.", "See its log " + driver.log() + ".");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DmlException("Detaching the job was interrupted; it did not start.",
                    "Run it again.", e);
        }
    }

    /**
     * Asks a detached run to stop: its driver sees the request within a second, the workers
     * finish their current step, and the run then reads {@code stopped}.
     *
     * @param folder the run store's folder
     * @param runId the run
     * @return the run's status when asked: only a {@code running} one is asked
     * @throws DmlException when the store has no such run
     */
    public static RunStatus stop(Path folder, String runId) {
        try (RunStore store = RunStore.open(folder)) {
            RunStatus now = status(store, runId);
            if (now == RunStatus.RUNNING) {
                try {
                    Files.writeString(store.folderOf(runId).resolve(STOP_FILE), "stop\n");
                } catch (IOException e) {
                    throw new DmlException("Cannot ask run " + runId + " to stop: "
                            + DmlException.literal(e.getMessage()) + ".",
                            "Check that " + DmlException.literal(store.folderOf(runId))
                            + " is writable.", e);
                }
            }
            return now;
        }
    }

    /**
     * Returns where a run stands now ({@link RunStatus#LOST} when its recording process died).
     *
     * @param store the store
     * @param runId the run
     * @return its status
     * @throws DmlException when the store has no such run
     */
    static RunStatus status(RunStore store, String runId) {
        long now = System.currentTimeMillis();
        RunStatus s = store.read(db -> Sql.first(db, "SELECT status, host, pid,"
                + " pid_started_ms, last_write_ms FROM runs WHERE id = ?",
                rs -> RunStore.current(rs.getString(1), rs.getString(2), rs.getLong(3),
                        rs.getLong(4), rs.getLong(5), now), runId));
        if (s == null) {
            throw new DmlException("No run '" + DmlException.literal(runId)
                    + "' in the run store " + DmlException.literal(store.folder()) + ".",
                    "Take a run id from %dml runs (Runs.open().table() in Java).");
        }
        return s;
    }

    /** The record of a detached job in its driver: the run store's folder and the run. */
    static final class DriverRecord implements DetachedJob.Record {
        private static final long serialVersionUID = 1L;
        private final String folder;
        private final String runId;

        DriverRecord(Path folder, String runId) {
            this.folder = folder.toAbsolutePath().toString();
            this.runId = runId;
        }

        @Override
        public dev.dml.ray.train.TrainingListener takeOver() {
            RunStore store = RunStore.open(Path.of(folder));
            try {
                return RunRecorder.takeOver(store, runId);
            } catch (RuntimeException e) {
                store.close();
                throw e;
            }
        }

        @Override
        public boolean stopRequested() {
            return Files.exists(Path.of(folder, runId, STOP_FILE));
        }
    }
}

package dev.dml.ray.runs;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.events.ProgressListener;
import dev.dml.events.StepMetrics;
import dev.dml.options.TrainOptions;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Follows a recorded run from any process ({@code %dml attach}): replays the steps and epochs
 * recorded so far to a {@link ProgressListener} (a live plot), then the new ones as they are
 * recorded, until the run ends. The follower owns its store connection; close it.
 */
public final class RunFollower implements AutoCloseable {

    /** The event a detached run's record starts with; its step is the job's total steps. */
    static final String DETACHED = "detached";

    private final RunStore store;
    private final String runId;
    private final Started started;
    private long lastStep = -1;
    private int lastEpoch;

    /**
     * What a run was started with, as the store recorded it: its job's name, its epochs, and
     * its total steps (for a run not detached, those recorded).
     */
    private record Started(String name, int epochs, long totalSteps) {

        static Started read(RunStore store, String runId) {
            String[] row = store.read(db -> one(db, "SELECT name, settings, steps FROM runs"
                    + " WHERE id = ?", runId, 3));
            String[] planned = store.read(db -> one(db, "SELECT step FROM events WHERE"
                    + " run_id = ? AND kind = '" + DETACHED + "'", runId, 1));
            JsonObject settings = JsonParser.parseString(row[1]).getAsJsonObject();
            String epochs = settings.has(TrainOptions.EPOCHS.name())
                    ? settings.get(TrainOptions.EPOCHS.name()).getAsString() : "1";
            long total = planned != null ? Long.parseLong(planned[0]) : Long.parseLong(row[2]);
            return new Started(row[0], Integer.parseInt(epochs), total);
        }
    }

    private RunFollower(RunStore store, String runId) {
        this.store = store;
        this.runId = runId;
        this.started = Started.read(store, runId);
    }

    /**
     * Opens a run of a store to follow.
     *
     * @param folder the run store's folder
     * @param runId the run, as {@code %dml runs} lists it
     * @return the follower, owned by the caller
     * @throws DmlException when the store has no such run
     */
    public static RunFollower open(Path folder, String runId) {
        RunStore store = RunStore.open(folder);
        try {
            DetachedRuns.status(store, runId); // an unknown run fails here
            return new RunFollower(store, runId);
        } catch (RuntimeException e) {
            store.close();
            throw e;
        }
    }

    private static String[] one(java.sql.Connection db, String sql, String id, int columns)
            throws SQLException {
        return Sql.first(db, sql, rs -> {
            String[] out = new String[columns];
            for (int i = 0; i < columns; i++) {
                out[i] = rs.getString(i + 1);
            }
            return out;
        }, id);
    }

    /**
     * Returns the run's job name.
     *
     * @return the name
     */
    public String name() {
        return started.name();
    }

    /**
     * Returns the epochs the run was started with.
     *
     * @return the epochs
     */
    public int epochs() {
        return started.epochs();
    }

    /**
     * Returns the steps the run was started with (for a run not detached, those recorded).
     *
     * @return the total steps
     */
    public long totalSteps() {
        return started.totalSteps();
    }

    /**
     * Hands the listener the steps and epochs recorded so far, then every {@code poll} the new
     * ones, until the run has ended (finished, stopped, failed or lost).
     *
     * @param progress receives the run's steps and epochs in order
     * @param poll how often the store is read
     * @return how the run ended
     * @throws InterruptedException when the calling thread is interrupted; the run goes on
     */
    public RunStatus follow(ProgressListener progress, Duration poll)
            throws InterruptedException {
        while (true) {
            RunStatus status = DetachedRuns.status(store, runId);
            deliverNew(progress); // after the status: an ended run's last rows are all there
            if (status != RunStatus.RUNNING) {
                return status;
            }
            Thread.sleep(poll.toMillis());
        }
    }

    /** The error an ended run failed with, or null. */
    public String error() {
        String[] row = store.read(db -> one(db, "SELECT error FROM runs WHERE id = ?", runId,
                1));
        return row == null ? null : row[0];
    }

    private void deliverNew(ProgressListener progress) {
        List<StepMetrics> steps = new ArrayList<>();
        List<EpochMetrics> done = new ArrayList<>();
        store.read(db -> {
            Sql.forEach(db, "SELECT step, epoch, loss, examples_per_second, learning_rate,"
                    + " wall_ms FROM steps WHERE run_id = ? AND step > ? ORDER BY step",
                    rs -> steps.add(new StepMetrics(rs.getInt(2), rs.getLong(1),
                            (float) real(rs, 3), 0, real(rs, 4), 0, 0, 0, 0, List.of(),
                            rs.getLong(6), real(rs, 5))),
                    runId, lastStep);
            Sql.forEach(db, "SELECT e.epoch, e.steps, e.train_loss, e.seconds,"
                    + " e.validation_loss, e.validation_accuracy,"
                    + " (SELECT MAX(step) FROM steps t WHERE t.run_id = e.run_id"
                    + " AND t.epoch = e.epoch) FROM epochs e WHERE e.run_id = ? AND e.epoch > ?"
                    + " ORDER BY e.epoch",
                    rs -> done.add(new EpochMetrics(rs.getInt(1), rs.getLong(7), rs.getLong(2),
                            (float) real(rs, 3), real(rs, 4), Double.NaN,
                            (float) real(rs, 5), real(rs, 6), Double.NaN)),
                    runId, lastEpoch);
            return null;
        });
        // steps and epochs in the order the job reported them: an epoch after its last step
        int e = 0;
        for (StepMetrics s : steps) {
            while (e < done.size() && done.get(e).epoch() < s.epoch()) {
                progress.deliver(done.get(e++));
            }
            progress.deliver(s);
            lastStep = s.step();
        }
        while (e < done.size()) {
            progress.deliver(done.get(e++));
        }
        if (!done.isEmpty()) {
            lastEpoch = done.get(done.size() - 1).epoch();
        }
    }

    private static double real(ResultSet rs, int column) throws SQLException {
        double v = rs.getDouble(column);
        return rs.wasNull() ? Double.NaN : v;
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return "RunFollower[" + runId + "]";
    }
}

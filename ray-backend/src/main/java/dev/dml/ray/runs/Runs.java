package dev.dml.ray.runs;

import dev.dml.DmlException;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.InstantColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * The recorded runs as Tablesaw tables, from Java:
 *
 * <pre>{@code
 * try (Runs runs = Runs.open()) {
 *     Table all = runs.table();                 // one row per run, newest first
 *     Table curve = runs.metrics(all.stringColumn("id").get(0));
 * }
 * }</pre>
 *
 * <p>A run still marked running whose process has died shows as {@code lost}. The tables are
 * copies: they do not change as runs go on.
 */
public final class Runs implements AutoCloseable {

    private final RunStore store;

    private Runs(RunStore store) {
        this.store = store;
    }

    /**
     * Opens the runs in the user's dml folder ({@link RunStore#defaultFolder()}).
     *
     * @return the runs, owned by the caller
     */
    public static Runs open() {
        return new Runs(RunStore.open());
    }

    /**
     * Opens the runs recorded in a folder.
     *
     * @param folder the run store's folder
     * @return the runs, owned by the caller
     */
    public static Runs open(Path folder) {
        return new Runs(RunStore.open(folder));
    }

    /**
     * Returns the store these runs are read from.
     *
     * @return the store, borrowed: closing these runs closes it
     */
    public RunStore store() {
        return store;
    }

    /**
     * Returns every run, newest first: {@code id, name, status, started, ended, wall_seconds,
     * steps, final_loss, usd, data, rows, columns, data_hash, settings, error}: {@code
     * columns} and {@code settings} (every option's value as typed) as JSON, {@code data_hash}
     * a content hash of the table (missing for files read on the workers).
     *
     * @return a new table
     */
    public Table table() {
        long now = System.currentTimeMillis();
        StringColumn id = StringColumn.create("id");
        StringColumn name = StringColumn.create("name");
        StringColumn status = StringColumn.create("status");
        InstantColumn started = InstantColumn.create("started");
        InstantColumn ended = InstantColumn.create("ended");
        DoubleColumn wall = DoubleColumn.create("wall_seconds");
        LongColumn steps = LongColumn.create("steps");
        DoubleColumn loss = DoubleColumn.create("final_loss");
        DoubleColumn usd = DoubleColumn.create("usd");
        StringColumn data = StringColumn.create("data");
        LongColumn rows = LongColumn.create("rows");
        StringColumn columns = StringColumn.create("columns");
        StringColumn hash = StringColumn.create("data_hash");
        StringColumn settings = StringColumn.create("settings");
        StringColumn error = StringColumn.create("error");
        store.read(db -> {
            try (PreparedStatement s = db.prepareStatement("SELECT id, name, status, started_ms,"
                    + " ended_ms, wall_seconds, steps, final_loss, usd, data_source, data_rows,"
                    + " data_columns, settings, error, host, pid, pid_started_ms, last_write_ms,"
                    + " data_hash FROM runs ORDER BY started_ms DESC, id");
                 ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    id.append(rs.getString(1));
                    name.append(rs.getString(2));
                    status.append(RunStore.current(rs.getString(3), rs.getString(15),
                            rs.getLong(16), rs.getLong(17), rs.getLong(18), now).word());
                    started.append(Instant.ofEpochMilli(rs.getLong(4)));
                    long end = rs.getLong(5);
                    if (rs.wasNull()) {
                        ended.appendMissing();
                    } else {
                        ended.append(Instant.ofEpochMilli(end));
                    }
                    appendReal(wall, rs, 6);
                    steps.append(rs.getLong(7));
                    appendReal(loss, rs, 8);
                    appendReal(usd, rs, 9);
                    data.append(rs.getString(10));
                    rows.append(rs.getLong(11));
                    columns.append(rs.getString(12));
                    hash.append(rs.getString(19));
                    settings.append(rs.getString(13));
                    error.append(rs.getString(14));
                }
            }
            return null;
        });
        return Table.create("runs", id, name, status, started, ended, wall, steps, loss, usd,
                data, rows, columns, hash, settings, error);
    }

    /**
     * Returns a run's per-step metrics, in step order: {@code step, epoch, loss,
     * examples_per_second, learning_rate} (missing where the job did not report one).
     *
     * @param runId the run's {@code id}
     * @return a new table
     * @throws DmlException when the store has no such run
     */
    public Table metrics(String runId) {
        IntColumn epoch = IntColumn.create("epoch");
        LongColumn step = LongColumn.create("step");
        DoubleColumn loss = DoubleColumn.create("loss");
        DoubleColumn rate = DoubleColumn.create("examples_per_second");
        DoubleColumn lr = DoubleColumn.create("learning_rate");
        query(runId, "SELECT step, epoch, loss, examples_per_second, learning_rate FROM steps"
                + " WHERE run_id = ? ORDER BY step", rs -> {
                    step.append(rs.getLong(1));
                    epoch.append(rs.getInt(2));
                    appendReal(loss, rs, 3);
                    appendReal(rate, rs, 4);
                    appendReal(lr, rs, 5);
                });
        return Table.create(runId + " steps", step, epoch, loss, rate, lr);
    }

    /**
     * Returns a run's per-epoch metrics, in epoch order: {@code epoch, steps, train_loss,
     * validation_loss, validation_accuracy, seconds}.
     *
     * @param runId the run's {@code id}
     * @return a new table
     * @throws DmlException when the store has no such run
     */
    public Table epochMetrics(String runId) {
        IntColumn epoch = IntColumn.create("epoch");
        LongColumn steps = LongColumn.create("steps");
        DoubleColumn train = DoubleColumn.create("train_loss");
        DoubleColumn valLoss = DoubleColumn.create("validation_loss");
        DoubleColumn valAcc = DoubleColumn.create("validation_accuracy");
        DoubleColumn seconds = DoubleColumn.create("seconds");
        query(runId, "SELECT epoch, steps, train_loss, validation_loss, validation_accuracy,"
                + " seconds FROM epochs WHERE run_id = ? ORDER BY epoch", rs -> {
                    epoch.append(rs.getInt(1));
                    steps.append(rs.getLong(2));
                    appendReal(train, rs, 3);
                    appendReal(valLoss, rs, 4);
                    appendReal(valAcc, rs, 5);
                    appendReal(seconds, rs, 6);
                });
        return Table.create(runId + " epochs", epoch, steps, train, valLoss, valAcc, seconds);
    }

    private interface Row {
        void add(ResultSet rs) throws SQLException;
    }

    private void query(String runId, String sql, Row row) {
        store.read(db -> {
            try (PreparedStatement known = db.prepareStatement(
                    "SELECT 1 FROM runs WHERE id = ?")) {
                known.setString(1, runId);
                try (ResultSet rs = known.executeQuery()) {
                    if (!rs.next()) {
                        throw new DmlException("No run '" + DmlException.literal(runId)
                                + "' in the run store "
                                + DmlException.literal(store.folder()) + ".",
                                "Take an id from Runs.table().");
                    }
                }
            }
            try (PreparedStatement s = db.prepareStatement(sql)) {
                s.setString(1, runId);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        row.add(rs);
                    }
                }
            }
            return null;
        });
    }

    private static void appendReal(DoubleColumn c, ResultSet rs, int index)
            throws SQLException {
        double v = rs.getDouble(index);
        if (rs.wasNull()) {
            c.appendMissing();
        } else {
            c.append(v);
        }
    }

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return "Runs[" + store.folder() + "]";
    }
}

package dev.dml.ray.runs;

import dev.dml.DmlException;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.InstantColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

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
     * Returns every run, newest first: {@code id, name, status, started, ended, steps, epochs,
     * wall_seconds, final_loss, val_loss, val_accuracy, usd, usd_per_hour, rows, data,
     * columns, data_hash, settings, dml_version, dml_commit, cluster, workers,
     * checkpoint_dir, model_dir, error}: {@code columns}, {@code settings} (every option's
     * value as typed) and {@code workers} as JSON, {@code data_hash} a content hash of the
     * table (missing for files read on the workers), {@code val_*} of the last epoch, {@code
     * cluster} how its nodes are priced.
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
        LongColumn steps = LongColumn.create("steps");
        IntColumn epochs = IntColumn.create("epochs");
        // the columns read as they are stored: each table column and the stored one it shows
        Map<StringColumn, String> texts = new LinkedHashMap<>();
        Map<DoubleColumn, String> reals = new LinkedHashMap<>();
        for (String[] c : new String[][] {{"data", "data_source"}, {"columns", "data_columns"},
                {"data_hash", "data_hash"}, {"settings", "settings"},
                {"dml_version", "dml_version"}, {"dml_commit", "dml_commit"},
                {"cluster", "cluster"}, {"workers", "workers"},
                {"checkpoint_dir", "checkpoint_dir"}, {"model_dir", "model_dir"},
                {"error", "error"}}) {
            texts.put(StringColumn.create(c[0]), c[1]);
        }
        for (String[] c : new String[][] {{"wall_seconds", "wall_seconds"},
                {"final_loss", "final_loss"}, {"val_loss", "last_val_loss"},
                {"val_accuracy", "last_val_accuracy"}, {"usd", "usd"},
                {"usd_per_hour", "usd_per_hour"}}) {
            reals.put(DoubleColumn.create(c[0]), c[1]);
        }
        LongColumn rows = LongColumn.create("rows");
        store.read(db -> {
            try (PreparedStatement s = db.prepareStatement("SELECT *,"
                    + " (SELECT COUNT(*) FROM epochs e WHERE e.run_id = runs.id) AS n_epochs,"
                    + " (SELECT validation_loss FROM epochs e WHERE e.run_id = runs.id"
                    + " ORDER BY epoch DESC LIMIT 1) AS last_val_loss,"
                    + " (SELECT validation_accuracy FROM epochs e WHERE e.run_id = runs.id"
                    + " ORDER BY epoch DESC LIMIT 1) AS last_val_accuracy"
                    + " FROM runs ORDER BY started_ms DESC, id");
                 ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    id.append(rs.getString("id"));
                    name.append(rs.getString("name"));
                    status.append(RunStore.current(rs.getString("status"), rs.getString("host"),
                            rs.getLong("pid"), rs.getLong("pid_started_ms"),
                            rs.getLong("last_write_ms"), now).word());
                    started.append(Instant.ofEpochMilli(rs.getLong("started_ms")));
                    long end = rs.getLong("ended_ms");
                    if (rs.wasNull()) {
                        ended.appendMissing();
                    } else {
                        ended.append(Instant.ofEpochMilli(end));
                    }
                    steps.append(rs.getLong("steps"));
                    epochs.append(rs.getInt("n_epochs"));
                    rows.append(rs.getLong("data_rows"));
                    for (Map.Entry<DoubleColumn, String> c : reals.entrySet()) {
                        appendReal(c.getKey(), rs, c.getValue());
                    }
                    for (Map.Entry<StringColumn, String> c : texts.entrySet()) {
                        c.getKey().append(rs.getString(c.getValue()));
                    }
                }
            }
            return null;
        });
        Table runs = Table.create("runs", id, name, status, started, ended, steps, epochs);
        reals.keySet().forEach(runs::addColumns);
        runs.addColumns(rows);
        texts.keySet().forEach(runs::addColumns);
        return runs;
    }

    /**
     * Returns a run's recoveries, resizes and notices, in order: {@code at, kind, step,
     * detail}.
     *
     * @param runId the run's {@code id}
     * @return a new table
     * @throws DmlException when the store has no such run
     */
    public Table events(String runId) {
        InstantColumn at = InstantColumn.create("at");
        StringColumn kind = StringColumn.create("kind");
        LongColumn step = LongColumn.create("step");
        StringColumn detail = StringColumn.create("detail");
        query(runId, "SELECT wall_ms, kind, step, detail FROM events WHERE run_id = ?"
                + " ORDER BY wall_ms, rowid", rs -> {
                    at.append(Instant.ofEpochMilli(rs.getLong(1)));
                    kind.append(rs.getString(2));
                    step.append(rs.getLong(3));
                    detail.append(rs.getString(4));
                });
        return Table.create(runId + " events", at, kind, step, detail);
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
        return numbers(runId, "steps", LongColumn.create("step"), IntColumn.create("epoch"),
                "loss", "examples_per_second", "learning_rate");
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
        return numbers(runId, "epochs", IntColumn.create("epoch"), LongColumn.create("steps"),
                "train_loss", "validation_loss", "validation_accuracy", "seconds");
    }

    /**
     * A run's rows of one table of the store, ordered by {@code order}: that column, {@code
     * other} and the reals (missing where the job reported none), named as in the store.
     */
    private Table numbers(String runId, String table, Column<?> order, Column<?> other,
            String... reals) {
        List<Column<?>> columns = new ArrayList<>(List.of(order, other));
        for (String name : reals) {
            columns.add(DoubleColumn.create(name));
        }
        String names = columns.stream().map(Column::name).collect(Collectors.joining(", "));
        query(runId, "SELECT " + names + " FROM " + table + " WHERE run_id = ? ORDER BY "
                + order.name(), rs -> {
                    for (Column<?> c : columns) {
                        if (c instanceof IntColumn i) {
                            i.append(rs.getInt(c.name()));
                        } else if (c instanceof LongColumn l) {
                            l.append(rs.getLong(c.name()));
                        } else {
                            appendReal((DoubleColumn) c, rs, c.name());
                        }
                    }
                });
        return Table.create(runId + " " + table, columns);
    }

    private void query(String runId, String sql, Sql.Row row) {
        store.read(db -> {
            if (Sql.first(db, "SELECT 1 FROM runs WHERE id = ?", rs -> true, runId) == null) {
                throw new DmlException("No run '" + DmlException.literal(runId)
                        + "' in the run store " + DmlException.literal(store.folder()) + ".",
                        "Take an id from Runs.table().");
            }
            Sql.forEach(db, sql, row, runId);
            return null;
        });
    }

    private static void appendReal(DoubleColumn c, ResultSet rs, String column)
            throws SQLException {
        double v = rs.getDouble(column);
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

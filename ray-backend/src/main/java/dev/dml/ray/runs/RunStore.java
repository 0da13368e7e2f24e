package dev.dml.ray.runs;

import dev.dml.DmlEnv;
import dev.dml.DmlException;
import dev.dml.events.EpochMetrics;
import dev.dml.events.JobCost;
import dev.dml.events.StepMetrics;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The runs recorded in one folder: a SQLite database ({@code runs.db}) with each run's settings,
 * data, metrics, cost and end, and beside it one folder per run with its TensorBoard event
 * files, so {@code tensorboard --logdir} on this folder shows every run.
 *
 * <p>Each write is its own transaction in write-ahead-log mode, so a process that dies mid-run
 * leaves every write before the one it was making; such a run, still marked running, reads as
 * {@link RunStatus#LOST}. Several processes may record into one store at once. Thread-safe; the
 * caller owns the store and closes it.
 */
public final class RunStore implements AutoCloseable {

    /** A run on another host whose last write is older than this reads as lost. */
    static final Duration SILENT_LIMIT = Duration.ofMinutes(30);

    private static final String SCHEMA = """
            CREATE TABLE IF NOT EXISTS runs (
              id TEXT PRIMARY KEY, name TEXT NOT NULL, status TEXT NOT NULL,
              started_ms INTEGER NOT NULL, ended_ms INTEGER, last_write_ms INTEGER NOT NULL,
              host TEXT NOT NULL, pid INTEGER NOT NULL, pid_started_ms INTEGER NOT NULL,
              settings TEXT NOT NULL, data_source TEXT, data_rows INTEGER, data_columns TEXT,
              data_hash TEXT,
              steps INTEGER NOT NULL DEFAULT 0, final_loss REAL, usd REAL, usd_per_hour REAL,
              wall_seconds REAL, error TEXT);
            CREATE TABLE IF NOT EXISTS events (
              run_id TEXT NOT NULL, wall_ms INTEGER NOT NULL, kind TEXT NOT NULL,
              step INTEGER, detail TEXT);
            CREATE TABLE IF NOT EXISTS steps (
              run_id TEXT NOT NULL, step INTEGER NOT NULL, epoch INTEGER NOT NULL,
              loss REAL, examples_per_second REAL, learning_rate REAL, wall_ms INTEGER,
              PRIMARY KEY (run_id, step));
            CREATE TABLE IF NOT EXISTS epochs (
              run_id TEXT NOT NULL, epoch INTEGER NOT NULL, steps INTEGER, train_loss REAL,
              validation_loss REAL, validation_accuracy REAL, seconds REAL,
              PRIMARY KEY (run_id, epoch));
            """;

    /** Columns added after the first release of the store; an older store gains them. */
    private static final List<String> LATER_COLUMNS = List.of("dml_version TEXT",
            "dml_commit TEXT", "cluster TEXT", "workers TEXT", "checkpoint_dir TEXT",
            "model_dir TEXT");

    private final Path folder;
    private final Connection db;

    private RunStore(Path folder, Connection db) {
        this.folder = folder;
        this.db = db;
    }

    /**
     * The store in the user's dml folder: {@code $DML_RUNS_DIR}, else {@code
     * ~/.local/share/dml/runs}.
     *
     * @return the folder
     */
    public static Path defaultFolder() {
        return DmlEnv.system().runsDir(Path.of(System.getProperty("user.home")));
    }

    /**
     * Opens the store in the user's dml folder ({@link #defaultFolder()}), creating it.
     *
     * @return the store, owned by the caller
     */
    public static RunStore open() {
        return open(defaultFolder());
    }

    /**
     * Opens the store in a folder (shared storage works too), creating it when missing.
     *
     * @param folder where {@code runs.db} and the runs' folders are
     * @return the store, owned by the caller
     * @throws DmlException when the folder cannot be created or the database opened
     */
    public static RunStore open(Path folder) {
        Path db = folder.resolve("runs.db");
        Connection c = null;
        try {
            Files.createDirectories(folder);
            c = DriverManager.getConnection("jdbc:sqlite:" + db);
            try (Statement s = c.createStatement()) {
                // another process's write waits up to 10 s instead of failing at once
                s.execute("PRAGMA busy_timeout = 10000");
                s.execute("PRAGMA journal_mode = WAL");
                // in WAL mode, NORMAL loses nothing when the process dies (only at power loss)
                s.execute("PRAGMA synchronous = NORMAL");
                for (String table : SCHEMA.split(";")) {
                    if (!table.isBlank()) {
                        s.executeUpdate(table);
                    }
                }
                addLaterColumns(s);
            }
            return new RunStore(folder, c);
        } catch (IOException | SQLException e) {
            closeQuietly(c);
            throw new DmlException("Cannot open the run store " + DmlException.literal(db) + ": "
                    + DmlException.literal(e.getMessage())
                    + ".", "Open it in a writable folder: RunStore.open(Path.of(\"...\")).", e);
        }
    }

    private static void addLaterColumns(Statement s) throws SQLException {
        Set<String> have = new HashSet<>();
        try (ResultSet rs = s.executeQuery("PRAGMA table_info(runs)")) {
            while (rs.next()) {
                have.add(rs.getString("name"));
            }
        }
        for (String column : LATER_COLUMNS) {
            if (!have.contains(column.substring(0, column.indexOf(' ')))) {
                s.executeUpdate("ALTER TABLE runs ADD COLUMN " + column);
            }
        }
    }

    /**
     * Returns the store's folder, the one to give {@code tensorboard --logdir}.
     *
     * @return the folder
     */
    public Path folder() {
        return folder;
    }

    /**
     * Returns a run's folder, where its TensorBoard event files are.
     *
     * @param runId the run
     * @return the folder, which exists once the run has started
     */
    public Path folderOf(String runId) {
        return folder.resolve(runId);
    }

    /** What a run is when it starts: its settings, data and code. */
    record RunStart(String id, String name, long startedMs, String settings, String dataSource,
            long dataRows, String dataColumns, String dataHash, String dmlVersion,
            String dmlCommit, String checkpointDir) {}

    /** Inserts a run as running, by this process. */
    synchronized void start(RunStart r) {
        ProcessHandle self = ProcessHandle.current();
        update("INSERT INTO runs (id, name, status, started_ms, last_write_ms, host, pid,"
                + " pid_started_ms, settings, data_source, data_rows, data_columns, data_hash,"
                + " dml_version, dml_commit, checkpoint_dir)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", r.id(), r.name(),
                RunStatus.RUNNING.word(), r.startedMs(), r.startedMs(), localHost(), self.pid(),
                startedMillis(self).orElse(0L), r.settings(), r.dataSource(), r.dataRows(),
                r.dataColumns(), r.dataHash(), r.dmlVersion(), r.dmlCommit(),
                r.checkpointDir());
    }

    /**
     * Makes this process the one recording a running run (a detached job's driver takes it
     * over from the kernel that started it), so that the run reads as lost if this process
     * dies rather than the kernel.
     *
     * @return when the run started
     * @throws DmlException when the store has no such run, or it has ended
     */
    synchronized long adopt(String id) {
        ProcessHandle self = ProcessHandle.current();
        long now = System.currentTimeMillis();
        update("UPDATE runs SET host = ?, pid = ?, pid_started_ms = ?, last_write_ms = ?"
                + " WHERE id = ? AND status = ?", localHost(), self.pid(),
                startedMillis(self).orElse(0L), now, id, RunStatus.RUNNING.word());
        Long started = read(db -> Sql.first(db,
                "SELECT started_ms FROM runs WHERE id = ? AND pid = ? AND status = ?",
                rs -> rs.getLong(1), id, self.pid(), RunStatus.RUNNING.word()));
        if (started == null) {
            throw new DmlException("The run store " + DmlException.literal(folder) + " has no"
                    + " running run " + id + " to take over.", "Start the job again.");
        }
        return started;
    }

    /** Records the workers (JSON) the run has now. */
    synchronized void workers(String id, String workers, long wallMs) {
        update("UPDATE runs SET workers = ?, last_write_ms = ? WHERE id = ?", workers, wallMs,
                id);
    }

    /** Records a recovery, resize or notice of the run. */
    synchronized void event(String id, String kind, long step, String detail, long wallMs) {
        update("INSERT INTO events VALUES (?, ?, ?, ?, ?)", id, wallMs, kind, step, detail);
        update("UPDATE runs SET last_write_ms = ? WHERE id = ?", wallMs, id);
    }

    /** Records where the run's trained model was saved. */
    synchronized void model(String id, Path dir) {
        update("UPDATE runs SET model_dir = ? WHERE id = ?", dir.toString(), id);
    }

    /** Adds a step's metrics (replacing the step's earlier ones, as after a recovery). */
    synchronized void step(String id, StepMetrics s, long wallMs) {
        inTransaction(() -> {
            update("INSERT OR REPLACE INTO steps VALUES (?, ?, ?, ?, ?, ?, ?)", id, s.step(),
                    s.epoch(), real(s.loss()), real(s.examplesPerSecond()),
                    real(s.learningRate()), wallMs);
            update("UPDATE runs SET steps = MAX(steps, ?), final_loss = ?, last_write_ms = ?"
                    + " WHERE id = ?", s.step(), real(s.loss()), wallMs, id);
        });
    }

    /** Adds an epoch's metrics. */
    synchronized void epoch(String id, EpochMetrics e, long wallMs) {
        inTransaction(() -> {
            update("INSERT OR REPLACE INTO epochs VALUES (?, ?, ?, ?, ?, ?, ?)", id, e.epoch(),
                    e.stepsRun(), real(e.trainLoss()), real(e.validationLoss()),
                    real(e.validationAccuracy()), real(e.seconds()));
            update("UPDATE runs SET last_write_ms = ? WHERE id = ?", wallMs, id);
        });
    }

    /** Records what the run has cost so far, and the nodes it is priced by. */
    synchronized void cost(String id, JobCost c, long wallMs) {
        update("UPDATE runs SET usd = ?, usd_per_hour = ?, cluster = ?, last_write_ms = ?"
                + " WHERE id = ?", real(c.usdSpent()), real(c.usdPerHour()), c.nodes(), wallMs,
                id);
    }

    /** Runs writes as one transaction, under the store's lock: a batch of a run's events. */
    synchronized void transaction(Runnable writes) {
        inTransaction(writes);
    }

    /** Records a run's end. */
    synchronized void end(String id, RunStatus status, long endedMs, double wallSeconds,
            String error) {
        update("UPDATE runs SET status = ?, ended_ms = ?, last_write_ms = ?, wall_seconds = ?,"
                + " error = ? WHERE id = ?", status.word(), endedMs, endedMs, real(wallSeconds),
                error, id);
    }

    /** Runs a read on the store's connection, under its lock. */
    synchronized <T> T read(SqlRead<T> read) {
        try {
            return read.apply(db);
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    /** A read that may throw {@link SQLException}. */
    interface SqlRead<T> {
        T apply(Connection db) throws SQLException;
    }

    /**
     * A stored status as it stands now: a run marked running whose process has died (or, on
     * another host, that has written nothing for {@link #SILENT_LIMIT}) is lost.
     */
    static RunStatus current(String stored, String host, long pid, long pidStartedMs,
            long lastWriteMs, long nowMs) {
        RunStatus s = RunStatus.of(stored);
        if (s != RunStatus.RUNNING) {
            return s;
        }
        if (!host.equals(localHost())) {
            return nowMs - lastWriteMs > SILENT_LIMIT.toMillis() ? RunStatus.LOST : s;
        }
        Optional<ProcessHandle> p = ProcessHandle.of(pid);
        if (p.isEmpty() || !p.get().isAlive()) {
            return RunStatus.LOST;
        }
        // the pid may have been reused by a later process
        long started = startedMillis(p.get()).orElse(pidStartedMs);
        return Math.abs(started - pidStartedMs) > 1000 ? RunStatus.LOST : s;
    }

    private static Optional<Long> startedMillis(ProcessHandle p) {
        return p.info().startInstant().map(java.time.Instant::toEpochMilli);
    }

    /** This host's name, looked up once: each listed run compares with it. */
    static String localHost() {
        return LocalHost.NAME;
    }

    private static final class LocalHost {
        static final String NAME = lookUp();

        private static String lookUp() {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (IOException e) {
                return "localhost";
            }
        }
    }

    /** SQLite stores NaN as NULL: "no value". */
    private static Double real(double v) {
        return Double.isNaN(v) ? null : v;
    }

    private void update(String sql, Object... args) {
        try (PreparedStatement s = db.prepareStatement(sql)) {
            for (int i = 0; i < args.length; i++) {
                s.setObject(i + 1, args[i]);
            }
            s.executeUpdate();
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    private void inTransaction(Runnable writes) {
        try {
            if (!db.getAutoCommit()) {
                writes.run(); // already inside a batch's transaction
                return;
            }
            db.setAutoCommit(false);
            try {
                writes.run();
                db.commit();
            } catch (RuntimeException e) {
                db.rollback();
                throw e;
            } finally {
                db.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    private DmlException failed(SQLException e) {
        return new DmlException("The run store " + DmlException.literal(folder.resolve(
                "runs.db")) + " failed: " + DmlException.literal(e.getMessage()) + ".",
                "Check that its folder is writable and has space; another process may hold"
                + " it locked.", e);
    }

    @Override
    public synchronized void close() {
        try {
            db.close();
        } catch (SQLException e) {
            throw failed(e);
        }
    }

    private static void closeQuietly(Connection c) {
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                // already failing: the caller reports the first error
            }
        }
    }

    @Override
    public String toString() {
        return "RunStore[" + folder + "]";
    }
}

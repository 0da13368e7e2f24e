package dev.dml.ray.data;

import dev.dml.DmlException;
import dev.dml.ray.data.store.DataStore;
import dev.dml.ray.data.store.LocalStore;
import dev.dml.ray.data.store.StoredFile;
import java.io.IOException;
import java.io.Serializable;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import tech.tablesaw.api.Table;

/**
 * Data files that every node can reach, read by the workers rather than the kernel: Parquet
 * files, cut into their row groups, and Arrow IPC files, cut into their record batches. A
 * {@link Unit} (one row group or record batch) is what a worker reads at a time and what the
 * node's {@link ShardCache} keeps.
 *
 * <p>Opening reads only the files' footers (row counts), never their rows. Locations are local
 * paths (a shared mount, the same on every node), {@code file://} URLs, or {@code s3://} URLs
 * of objects ({@link DataStore}); a folder or prefix stands for its {@code .parquet} and {@code
 * .arrow} files in name order.
 *
 * <p>A plain {@link Serializable} class: it travels to the workers inside their shard.
 */
public final class DataFiles implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The two file formats workers read. */
    public enum Format { PARQUET, ARROW }

    /** One row group or record batch of one file. */
    public static final class Unit implements Serializable {
        private static final long serialVersionUID = 2L;
        final StoredFile file;
        final Format format;
        final int index;
        final long rows;

        Unit(StoredFile file, Format format, int index, long rows) {
            this.file = file;
            this.format = format;
            this.index = index;
            this.rows = rows;
        }

        /**
         * Returns its rows.
         *
         * @return the row count from the footer
         */
        public long rows() {
            return rows;
        }

        /**
         * The file, its size and version (modification time, or an object's ETag), and the
         * unit: a cache key that a rewrite changes.
         */
        String key() {
            return file.url() + "|" + file.size() + "|" + file.version() + "|" + index;
        }

        @Override
        public String toString() {
            return file.name() + (format == Format.PARQUET ? " row group " : " batch ") + index;
        }
    }

    private final String location;
    private final DataStore store;
    private final ArrayList<Unit> units;
    /** Scans already made of these files, so that a spec's variants (probes, scale) scan once. */
    private final transient java.util.Map<ColumnSelection, FileScan> scans =
            new java.util.concurrent.ConcurrentHashMap<>();

    private DataFiles(String location, DataStore store, List<Unit> units) {
        this.location = location;
        this.store = store;
        this.units = new ArrayList<>(units);
    }

    /**
     * Opens the files a location names, reading only their footers.
     *
     * @param location a file, a folder of files, a {@code file://} URL of either, or an {@code
     *     s3://bucket/key} or {@code s3://bucket/prefix/} URL
     * @return the files' units
     * @throws DmlException for another URL scheme, a missing path, or an unknown format
     */
    public static DataFiles open(String location) {
        return open(location, null);
    }

    /**
     * Opens the files a location names, reading only their footers.
     *
     * @param location a file, a folder of files, a {@code file://} URL of either, or an {@code
     *     s3://bucket/key} or {@code s3://bucket/prefix/} URL
     * @param s3Endpoint the endpoint of an S3-compatible store ({@code --s3-endpoint}), or null
     *     for {@code AWS_ENDPOINT_URL}, else AWS
     * @return the files' units
     * @throws DmlException for another URL scheme, a missing path, or an unknown format
     */
    public static DataFiles open(String location, String s3Endpoint) {
        DataStore store = DataStore.of(location, s3Endpoint);
        String shown = store.isLocal() ? LocalStore.path(location).toString() : location;
        DataStore.Listing found = store.list(location);
        List<StoredFile> files;
        if (found.kind() == DataStore.Kind.FOLDER) {
            files = found.files().stream().filter(f -> format(f.name()) != null).toList();
            if (files.isEmpty()) {
                throw store.isLocal()
                        ? new DmlException("The folder " + shown + " holds no .parquet or"
                                + " .arrow file.", "Point at a folder of Parquet or Arrow IPC"
                                + " files.")
                        : new DmlException("The prefix " + shown + " holds no .parquet or"
                                + " .arrow object.", "Point at a prefix of Parquet or Arrow"
                                + " IPC files (aws s3 ls " + shown + " lists what it holds).");
            }
        } else if (found.kind() == DataStore.Kind.FILE) {
            if (format(found.files().get(0).name()) == null) {
                throw new DmlException("Workers read Parquet (.parquet) and Arrow IPC (.arrow)"
                        + " files; " + shown + " is neither.", "Convert it, or leave out"
                        + " {read-on-workers} to read it in the kernel.");
            }
            files = found.files();
        } else if (store.isLocal()) {
            throw new DmlException("There is no file or folder " + shown + ".",
                    "Give a path every node can reach, such as a shared mount.");
        } else {
            throw new DmlException("There is no object or prefix " + shown + ".",
                    "Check the key; end the URL with / for a prefix of files.");
        }
        List<Unit> units = new ArrayList<>();
        for (StoredFile f : files) {
            units.addAll(unitsOf(store, f));
        }
        return new DataFiles(location, store, units);
    }

    static Format format(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        if (n.endsWith(".parquet") || n.endsWith(".pq")) {
            return Format.PARQUET;
        }
        return n.endsWith(".arrow") || n.endsWith(".ipc") || n.endsWith(".feather")
                ? Format.ARROW : null;
    }

    private static List<Unit> unitsOf(DataStore store, StoredFile f) {
        Format format = format(f.name());
        long[] rows = format == Format.PARQUET ? ParquetFiles.rowGroupRows(store, f)
                : batchRows(store, f);
        List<Unit> out = new ArrayList<>();
        for (int i = 0; i < rows.length; i++) {
            out.add(new Unit(f, format, i, rows[i]));
        }
        return out;
    }

    /** Each record batch's rows, from its metadata alone: no batch body is read. */
    private static long[] batchRows(DataStore store, StoredFile f) {
        try (BufferAllocator a = new RootAllocator();
                SeekableByteChannel ch = store.open(f);
                ArrowFileReader r = new ArrowFileReader(ch, a, ArrowCodecs.INSTANCE)) {
            List<ArrowBlock> blocks = r.getRecordBlocks();
            long[] rows = new long[blocks.size()];
            for (int i = 0; i < rows.length; i++) {
                ch.position(blocks.get(i).getOffset());
                MessageMetadataResult m = MessageSerializer.readMessage(new ReadChannel(ch));
                if (m == null || m.headerType() != MessageHeader.RecordBatch) {
                    throw new IOException("block " + i + " holds no record batch");
                }
                rows[i] = ((RecordBatch) m.getMessage().header(new RecordBatch())).length();
            }
            return rows;
        } catch (IOException e) {
            throw new DmlException("Could not read Arrow IPC file " + f + ": " + e.getMessage(),
                    "Workers need the IPC file format (pyarrow.ipc.new_file), which can be"
                            + " read a batch at a time; a stream cannot.", e);
        }
    }

    /**
     * Reads one unit's rows, only the named columns.
     *
     * @param unit the unit, from 0
     * @param columns the columns to read, or null for all
     * @return its rows
     */
    public Table read(int unit, Collection<String> columns) {
        Unit u = units.get(unit);
        requireUnchanged(u);
        Table t = readUnit(u, columns);
        requireUnchanged(u); // a rewrite while it was read
        return t;
    }

    private Table readUnit(Unit u, Collection<String> columns) {
        if (u.format == Format.PARQUET) {
            return ParquetFiles.readRowGroup(store, u.file, u.index, columns);
        }
        try (BufferAllocator a = new RootAllocator();
                ArrowFileReader r = new ArrowFileReader(store.open(u.file), a,
                        ArrowCodecs.INSTANCE)) {
            r.loadRecordBatch(r.getRecordBlocks().get(u.index));
            VectorSchemaRoot root = r.getVectorSchemaRoot();
            Table all = ArrowTables.toTable(root, r, u.file.baseName());
            return columns == null ? all : all.selectColumns(all.columnNames().stream()
                    .filter(columns::contains).toArray(String[]::new));
        } catch (IOException e) {
            throw new DmlException("Could not read " + u + " of " + u.file + ": "
                    + e.getMessage(), "Check that the file has not changed since the job"
                    + " started.", e);
        }
    }

    /**
     * Refuses a file whose size or version (modification time, ETag) differ from those seen
     * when the files were opened ({@link StoredFile#changed}).
     */
    private void requireUnchanged(Unit u) {
        StoredFile now = store.stat(u.file);
        if (!u.file.sameAs(now)) {
            throw u.file.changed(u.file.changeTo(now));
        }
    }

    /**
     * Deals the units to shards, balancing their rows: each unit in turn goes to the shard with
     * the fewest rows so far. With {@code shuffle} the units come in a seeded order (a shard then
     * mixes row groups from across the files); without it, each shard's units stay in file
     * order.
     *
     * @param shards the shards
     * @param shuffle whether to deal in a seeded order
     * @param seed the seed
     * @return each shard's units
     * @throws DmlException when there are fewer units than shards
     */
    public List<int[]> deal(int shards, boolean shuffle, long seed) {
        int n = units.size();
        if (n < shards) {
            throw new DmlException("The files " + location + " hold " + n + " row groups or"
                    + " record batches, fewer than the " + shards + " shards: workers read"
                    + " whole row groups.", "Write smaller row groups (pyarrow: row_group_size)"
                    + " or more files, or lower {workers}.");
        }
        int[] order = shuffle ? RowOrder.permutation(n, seed)
                : java.util.stream.IntStream.range(0, n).toArray();
        long[] rows = new long[shards];
        List<List<Integer>> out = new ArrayList<>();
        for (int s = 0; s < shards; s++) {
            out.add(new ArrayList<>());
        }
        for (int u : order) {
            int to = 0;
            for (int s = 1; s < shards; s++) {
                to = rows[s] < rows[to] ? s : to;
            }
            out.get(to).add(u);
            rows[to] += units.get(u).rows;
        }
        List<int[]> dealt = new ArrayList<>();
        for (List<Integer> l : out) {
            int[] a = l.stream().mapToInt(Integer::intValue).toArray();
            if (!shuffle) {
                java.util.Arrays.sort(a);
            }
            dealt.add(a);
        }
        return dealt;
    }

    /**
     * Returns the units, in file and row order.
     *
     * @return the units
     */
    public List<Unit> units() {
        return List.copyOf(units);
    }

    /**
     * Returns the rows of every unit.
     *
     * @return the row count
     */
    public long rows() {
        return units.stream().mapToLong(u -> u.rows).sum();
    }

    /**
     * Returns the location these files were opened from.
     *
     * @return a path or URL, as given
     */
    public String location() {
        return location;
    }

    /** The scan of these files for a selection, made once per selection in this JVM. */
    FileScan scan(ColumnSelection selection, java.util.function.Supplier<FileScan> scan) {
        return scans == null ? scan.get() : scans.computeIfAbsent(selection, k -> scan.get());
    }

    /** A cache key for a unit: the file, its size and time, the unit. */
    String key(int unit) {
        return units.get(unit).key();
    }

    @Override
    public String toString() {
        return "DataFiles[" + location + ", " + units.size() + " units, " + rows() + " rows]";
    }
}

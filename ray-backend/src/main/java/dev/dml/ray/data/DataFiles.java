package dev.dml.ray.data;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.Serializable;
import java.net.URI;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import tech.tablesaw.api.Table;

/**
 * Data files that every node can reach, read by the workers rather than the kernel: Parquet
 * files, cut into their row groups, and Arrow IPC files, cut into their record batches. A
 * {@link Unit} (one row group or record batch) is what a worker reads at a time and what the
 * node's {@link ShardCache} keeps.
 *
 * <p>Opening reads only the files' footers (row counts), never their rows. Locations are local
 * paths (a shared mount, the same on every node) or {@code file://} URLs; a folder stands for
 * its {@code .parquet} and {@code .arrow} files in name order.
 *
 * <p>A plain {@link Serializable} class: it travels to the workers inside their shard.
 */
public final class DataFiles implements Serializable {

    private static final long serialVersionUID = 1L;

    /** The two file formats workers read. */
    public enum Format { PARQUET, ARROW }

    /** One row group or record batch of one file. */
    public static final class Unit implements Serializable {
        private static final long serialVersionUID = 1L;
        final String path;
        final Format format;
        final int index;
        final long rows;
        final long size;
        final long modified;

        Unit(String path, Format format, int index, long rows, long size, long modified) {
            this.path = path;
            this.format = format;
            this.index = index;
            this.rows = rows;
            this.size = size;
            this.modified = modified;
        }

        /**
         * Returns its rows.
         *
         * @return the row count from the footer
         */
        public long rows() {
            return rows;
        }

        /** The file, its size and time, and the unit: a cache key that a rewrite changes. */
        String key() {
            return path + "|" + size + "|" + modified + "|" + index;
        }

        @Override
        public String toString() {
            return Path.of(path).getFileName() + (format == Format.PARQUET ? " row group "
                    : " batch ") + index;
        }
    }

    private final String location;
    private final ArrayList<Unit> units;
    /** Scans already made of these files, so that a spec's variants (probes, scale) scan once. */
    private final transient java.util.Map<ColumnSelection, FileScan> scans =
            new java.util.concurrent.ConcurrentHashMap<>();

    private DataFiles(String location, List<Unit> units) {
        this.location = location;
        this.units = new ArrayList<>(units);
    }

    /**
     * Opens the files a location names, reading only their footers.
     *
     * @param location a file, a folder of files, or a {@code file://} URL of either
     * @return the files' units
     * @throws DmlException for another URL scheme, a missing path, or an unknown format
     */
    public static DataFiles open(String location) {
        Path root = toPath(location);
        List<Path> files;
        if (Files.isDirectory(root)) {
            try (Stream<Path> s = Files.list(root)) {
                files = s.filter(p -> format(p) != null).sorted().toList();
            } catch (IOException e) {
                throw new DmlException("Could not list the folder " + root + ": "
                        + e.getMessage() + ".", "Check that every node can read it.", e);
            }
            if (files.isEmpty()) {
                throw new DmlException("The folder " + root + " holds no .parquet or .arrow"
                        + " file.", "Point at a folder of Parquet or Arrow IPC files.");
            }
        } else if (Files.isRegularFile(root)) {
            if (format(root) == null) {
                throw new DmlException("Workers read Parquet (.parquet) and Arrow IPC (.arrow)"
                        + " files; " + root + " is neither.", "Convert it, or leave out"
                        + " {read-on-workers} to read it in the kernel.");
            }
            files = List.of(root);
        } else {
            throw new DmlException("There is no file or folder " + root + ".",
                    "Give a path every node can reach, such as a shared mount.");
        }
        List<Unit> units = new ArrayList<>();
        for (Path f : files) {
            units.addAll(unitsOf(f.toAbsolutePath().normalize()));
        }
        return new DataFiles(location, units);
    }

    /** A path, or a file:// URL; any other scheme is refused with one line. */
    static Path toPath(String location) {
        int colon = location.indexOf("://");
        if (colon > 0 && location.substring(0, colon).matches("[A-Za-z][A-Za-z0-9+.-]*")) {
            String scheme = location.substring(0, colon).toLowerCase(Locale.ROOT);
            if (!scheme.equals("file")) {
                throw new DmlException("Workers read files from a path or a file:// URL, not "
                        + scheme + "://; nothing here can fetch " + location + ".",
                        "Copy the files to a folder every node mounts and give its path.");
            }
            return Path.of(URI.create(location));
        }
        return Path.of(location).toAbsolutePath().normalize();
    }

    static Format format(Path p) {
        String n = p.getFileName().toString().toLowerCase(Locale.ROOT);
        if (TableReaders.isParquet(p)) {
            return Format.PARQUET;
        }
        return n.endsWith(".arrow") || n.endsWith(".ipc") || n.endsWith(".feather")
                ? Format.ARROW : null;
    }

    private static List<Unit> unitsOf(Path f) {
        Format format = format(f);
        long[] rows = format == Format.PARQUET ? ParquetFiles.rowGroupRows(f) : batchRows(f);
        List<Unit> out = new ArrayList<>();
        try {
            long size = Files.size(f);
            long modified = modified(f);
            for (int i = 0; i < rows.length; i++) {
                out.add(new Unit(f.toString(), format, i, rows[i], size, modified));
            }
        } catch (IOException e) {
            throw new DmlException("Could not read " + f + ": " + e.getMessage() + ".",
                    "Check that every node can read it.", e);
        }
        return out;
    }

    private static long[] batchRows(Path f) {
        try (BufferAllocator a = new RootAllocator();
                ArrowFileReader r = arrowFile(f, a)) {
            List<ArrowBlock> blocks = r.getRecordBlocks();
            long[] rows = new long[blocks.size()];
            for (int i = 0; i < rows.length; i++) {
                r.loadRecordBatch(blocks.get(i));
                rows[i] = r.getVectorSchemaRoot().getRowCount();
            }
            return rows;
        } catch (IOException e) {
            throw new DmlException("Could not read Arrow IPC file " + f + ": " + e.getMessage(),
                    "Workers need the IPC file format (pyarrow.ipc.new_file), which can be"
                            + " read a batch at a time; a stream cannot.", e);
        }
    }

    private static ArrowFileReader arrowFile(Path f, BufferAllocator a) throws IOException {
        return new ArrowFileReader(FileChannel.open(f, StandardOpenOption.READ), a,
                ArrowCodecs.INSTANCE);
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

    private static Table readUnit(Unit u, Collection<String> columns) {
        Path p = Path.of(u.path);
        if (u.format == Format.PARQUET) {
            return ParquetFiles.readRowGroup(p, u.index, columns);
        }
        try (BufferAllocator a = new RootAllocator();
                ArrowFileReader r = arrowFile(p, a)) {
            r.loadRecordBatch(r.getRecordBlocks().get(u.index));
            VectorSchemaRoot root = r.getVectorSchemaRoot();
            Table all = ArrowTables.toTable(root, r, ShardCache.baseName(p));
            return columns == null ? all : all.selectColumns(all.columnNames().stream()
                    .filter(columns::contains).toArray(String[]::new));
        } catch (IOException e) {
            throw new DmlException("Could not read " + u + " of " + p + ": " + e.getMessage(),
                    "Check that the file has not changed since the job started.", e);
        }
    }

    /**
     * Refuses a file whose size or modification time differ from those seen when the files were
     * opened: the scan checked the rows (their labels among the model's classes, their values
     * finite) and learnt the statistics from the old contents, and the cache keys its units by
     * them, so rows written since would reach training unchecked (issue 26, row 10).
     */
    private static void requireUnchanged(Unit u) {
        Path p = Path.of(u.path);
        long size;
        long modified;
        try {
            size = Files.size(p);
            modified = modified(p);
        } catch (IOException e) {
            size = -1;
            modified = -1;
        }
        if (size != u.size || modified != u.modified) {
            String change = size < 0 ? "it is gone" : u.size + " bytes then, " + size + " now";
            throw new DmlException("The file " + DmlException.literal(p) + " changed after the"
                    + " job checked its rows (" + change + "); dml trains only on rows it checked.",
                    "Run the training again, and leave the files unchanged while a job reads"
                            + " them (write new data to a new file).");
        }
    }

    /** The modification time to the file system's precision, so a quick rewrite still shows. */
    private static long modified(Path p) throws IOException {
        return Files.getLastModifiedTime(p).to(java.util.concurrent.TimeUnit.NANOSECONDS);
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

package dev.dml.bench;

import ai.djl.ndarray.NDManager;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.DataFiles;
import dev.dml.ray.data.FileShard;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.data.ShardDecoder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.IntStream;

/**
 * P6's worker-read side: the same table as files on disk (Parquet, and Arrow IPC in record
 * batches), read the way a worker reads its shard ({@link FileShard#open}): unit by unit, with
 * the next unit prefetched, through the node's cache or without one.
 */
final class WorkerReadFiles implements AutoCloseable {

    /** Rows per Parquet row group and Arrow record batch, as pyarrow's writers default near. */
    static final int ROWS_PER_GROUP = 65_536;

    private final Path dir;
    final DataFiles parquet;
    final DataFiles arrow;
    private final ColumnSelection sel;
    private final Path parquetFile;
    private final long parquetBytes;

    private WorkerReadFiles(Path dir, DataFiles parquet, DataFiles arrow, ColumnSelection sel,
            Path parquetFile) throws IOException {
        this.dir = dir;
        this.parquet = parquet;
        this.arrow = arrow;
        this.sel = sel;
        this.parquetFile = parquetFile;
        this.parquetBytes = Files.size(parquetFile);
    }

    /**
     * Writes the shard's rows as files, with pyarrow (python3 on the PATH must import it).
     *
     * @param name the data set
     * @param ipc the table as one shard's IPC stream
     * @param sel the columns
     * @return the files
     */
    static WorkerReadFiles write(String name, byte[] ipc, ColumnSelection sel) throws Exception {
        Path dir = Files.createTempDirectory("dml-p6-" + name);
        Path stream = Files.write(dir.resolve(name + ".arrows"), ipc);
        Path pq = dir.resolve(name + ".parquet");
        Path ar = dir.resolve(name + ".arrow");
        toFiles(stream, sel.label(), pq, ar);
        Files.delete(stream);
        return new WorkerReadFiles(dir, DataFiles.open(pq.toString()),
                DataFiles.open(ar.toString()), sel, pq);
    }

    /**
     * Runs {@code bench/data/shard_to_files.py}: a shard's IPC stream to Parquet (snappy, row
     * groups of {@link #ROWS_PER_GROUP}) and, if {@code arrow} is given, an Arrow IPC file.
     */
    static void toFiles(Path stream, String label, Path parquet, Path arrow) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("python3",
                "bench/data/shard_to_files.py", stream.toString(), label,
                Integer.toString(ROWS_PER_GROUP), parquet.toString()));
        if (arrow != null) {
            cmd.add(arrow.toString());
        }
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("bench/data/shard_to_files.py failed; the benchmark"
                    + " needs python3 with pyarrow on the PATH (PATH=/path/to/venv/bin:$PATH).");
        }
    }

    /** Deletes a folder and everything in it. */
    static void deleteTree(Path dir) throws IOException {
        try (var s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Seconds to read a shard into arrays, which are then freed. */
    static double timed(java.util.function.Supplier<ShardArrays> read) {
        long t0 = System.nanoTime();
        ShardArrays s = read.get();
        long t1 = System.nanoTime();
        s.close();
        return (t1 - t0) / 1e9;
    }

    /** Reads every unit of the files as one worker's shard; the cache is off for size 0. */
    ShardArrays read(DataFiles files, Path cache, long cacheBytes, ShardDecoder dec,
            NDManager m) {
        int[] all = IntStream.range(0, files.units().size()).toArray();
        return new FileShard(files, all, sel, cache, cacheBytes).open(dec, m);
    }

    /** Reads every Parquet row group into a table and drops it; returns the seconds. */
    double readTablesOnly() {
        List<String> cols = new java.util.ArrayList<>(sel.features());
        cols.add(sel.label());
        long t0 = System.nanoTime();
        long rows = 0;
        for (int u = 0; u < parquet.units().size(); u++) {
            rows += parquet.read(u, cols).rowCount();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        if (rows != parquet.rows()) {
            throw new IllegalStateException("read " + rows + " of " + parquet.rows() + " rows");
        }
        return s;
    }

    Path cacheDir() {
        return dir.resolve("cache");
    }

    long parquetBytes() {
        return parquetBytes;
    }

    /** @return the Parquet file */
    Path parquetFile() {
        return parquetFile;
    }

    int units() {
        return parquet.units().size();
    }

    @Override
    public void close() throws IOException {
        deleteTree(dir);
    }

}

package dev.dml.bench;

import static dev.dml.bench.WorkerReadFiles.timed;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.dml.ray.cluster.JobJvms;
import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.FashionMnist;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.data.ShardDecoder;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.data.TableArrays;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import tech.tablesaw.api.Table;

/**
 * P6: the data path's bandwidth, Tablesaw table to Arrow IPC shard bytes to the worker's DJL
 * arrays, divided by the bandwidth of a plain memcpy of the same bytes (goal at least 0.25).
 *
 * <p>The bytes are the payload the worker ends up with: float32 features and int32 labels, {@code
 * rows * (F + 1) * 4}. The subject is {@link ArrowShards#encode} followed by {@link
 * ShardDecoder#openArrays}, in one process (the hop through Ray's object store is not part of
 * it). The peer, and the ratio's denominator, is a copy of that many bytes between two direct
 * buffers that were written before (warm). For context the same rounds time a copy into a freshly
 * allocated PyTorch tensor, a heap {@code System.arraycopy}, the two halves of the subject, and
 * {@link TableArrays#openArrays} (Tablesaw straight to arrays, without IPC).
 *
 * <p>The worker-read path ({@code --read-on-workers}) runs in the same rounds, against the same
 * memcpy ({@link WorkerReadFiles}): the table as Parquet and as Arrow IPC files, read by {@link
 * dev.dml.ray.data.FileShard#open} without a cache, and from a warm node cache.
 *
 * <p>Two data sets: the synthetic fraud table (1M rows, 31 features) and Fashion-MNIST's 60,000
 * training images (784 features) from Debian's package. The result's ratio is the lower of the two.
 */
final class DataPathBandwidth implements Benchmark {

    static final double GOAL = 0.25;
    static final Rounds ROUNDS = new Rounds(2, 7);
    static final int FRAUD_ROWS = 1_000_000;
    static final long FRAUD_SEED = 5;

    private static final String SUBJECT = "Tablesaw -> ArrowShards.encode -> IPC bytes ->"
            + " ShardDecoder.openArrays -> NDArray features [rows, F] float32 + labels int32";
    private static final String PEER = "memcpy of the same bytes between two warm direct"
            + " ByteBuffers (ByteBuffer.put, Unsafe.copyMemory)";

    @Override
    public BenchResult run(String command) throws Exception {
        Map<String, String> env = new java.util.TreeMap<>();
        JobJvms.WORKER_ENV.forEach((k, v) -> {
            String actual = System.getenv(k);
            if (!v.equals(actual)) {
                throw new IllegalStateException("P6 times the decode as a worker runs it, with "
                        + k + "=" + v + " (JobJvms.WORKER_ENV), but this JVM has " + k + "="
                        + actual + ". Run it with: bash bench/run P6");
            }
            env.put(k, actual);
        });
        List<Map<String, Object>> datasets = new ArrayList<>();
        double ratio = Double.POSITIVE_INFINITY;
        try (BufferAllocator root = new RootAllocator();
                NDManager manager = NDManager.newBaseManager("PyTorch")) {
            Map<String, Object> fraud = fraud(root, manager);
            datasets.add(fraud);
            ratio = Math.min(ratio, (double) fraud.get("ratio"));
            Map<String, Object> fashion = fashionMnist(root, manager);
            datasets.add(fashion);
            if (fashion.containsKey("ratio")) {
                ratio = Math.min(ratio, (double) fashion.get("ratio"));
            }
        }
        return new BenchResult("P6", GOAL, command)
                .setRatio(ratio)
                .put("ratio_is", "the kernel-table path: the lower over the data sets of"
                        + " median(subject MB/s) / median(peer MB/s)")
                .put("ratio_worker_read_parquet", lowest(datasets, "ratio_parquet_no_cache"))
                .put("ratio_worker_read_arrow", lowest(datasets, "ratio_arrow_no_cache"))
                .put("ratio_worker_read_cache_hits", lowest(datasets, "ratio_cache_hits"))
                .put("worker_read_ratios_are", "the worker-read path (files every node reaches,"
                        + " read by the worker itself), each the lower over the data sets of"
                        + " median(path MB/s) / median(peer MB/s), the peer timed in the same"
                        + " rounds")
                .put("subject", SUBJECT)
                .put("peer", PEER)
                .put("bytes_are", "the payload delivered: rows * F * 4 (float32 features) +"
                        + " rows * 4 (int32 labels); MB = 10^6 bytes")
                .put("method", "one process; " + ROUNDS.describe()
                        + "; each round runs every trial once,"
                        + " starting at the next trial each round; a full GC before every trial;"
                        + " medians of the timed rounds")
                .put("environment", env)
                .put("environment_is", "the environment variables every worker JVM gets"
                        + " (JobJvms.WORKER_ENV); THP_MEM_ALLOC_ENABLE=1 makes PyTorch"
                        + " back large CPU tensors with transparent huge pages")
                .put("datasets", datasets);
    }

    private static Map<String, Object> fraud(BufferAllocator root, NDManager manager)
            throws Exception {
        Table t = SyntheticFraud.generate(FRAUD_ROWS, FRAUD_SEED);
        return measure("synthetic_fraud", t, SyntheticFraud.selection(), root, manager);
    }

    private static Map<String, Object> fashionMnist(BufferAllocator root, NDManager manager)
            throws Exception {
        if (!Files.isRegularFile(FashionMnist.DEBIAN_DIR.resolve("train-images-idx3-ubyte.gz"))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", "fashion_mnist_train");
            m.put("skipped", "the Debian package dataset-fashion-mnist is not installed");
            System.out.println("fashion_mnist_train: skipped, install dataset-fashion-mnist");
            return m;
        }
        Table t = FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TRAIN, 0)
                .toTable();
        return measure("fashion_mnist_train", t, FashionMnist.selection(), root, manager);
    }

    private static Map<String, Object> measure(String name, Table t, ColumnSelection sel,
            BufferAllocator root, NDManager m) throws Exception {
        int rows = t.rowCount();
        int f = sel.featureCount();
        long bytes = (long) rows * f * 4 + (sel.hasLabel() ? rows * 4L : 0);
        int n = Math.toIntExact(bytes);
        ByteBuffer src = ByteBuffer.allocateDirect(n);
        for (int i = 0; i < n; i++) {
            src.put(i, (byte) (i * 31 + 7));
        }
        ByteBuffer dst = ByteBuffer.allocateDirect(n);
        byte[] heapSrc = new byte[n];
        src.duplicate().get(heapSrc);
        byte[] heapDst = new byte[n];

        Map<String, Object> workerRead;
        TrialTimes subject = new TrialTimes("tablesaw_arrow_ndarray", bytes);
        TrialTimes encode = new TrialTimes("encode", bytes);
        TrialTimes decode = new TrialTimes("decode", bytes);
        TrialTimes memcpy = new TrialTimes("memcpy_warm_direct", bytes);
        TrialTimes fresh = new TrialTimes("memcpy_fresh_tensor", bytes);
        TrialTimes heap = new TrialTimes("arraycopy_warm_heap", bytes);
        TrialTimes noIpc = new TrialTimes("tablesaw_ndarray_no_ipc", bytes);
        TrialTimes pqCold = new TrialTimes("files_parquet_no_cache", bytes);
        TrialTimes arCold = new TrialTimes("files_arrow_no_cache", bytes);
        TrialTimes hits = new TrialTimes("files_cache_hits", bytes);
        TrialTimes pqRead = new TrialTimes("files_parquet_to_tablesaw", bytes);
        long[] ipcBytes = new long[1];
        try (ShardDecoder dec = new ShardDecoder(root, "p6/" + name);
                WorkerReadFiles files = WorkerReadFiles.write(name,
                        ArrowShards.encode(t, sel), sel)) {
            ipcBytes[0] = check(t, sel, dec, m);
            checkFiles(t, sel, files, dec, m); // and fills the cache for the hits trial
            new SideBySide(ROUNDS)
                    .add(pqCold, round -> timed(() -> files.read(files.parquet, null, 0, dec, m)))
                    .add(arCold, round -> timed(() -> files.read(files.arrow, null, 0, dec, m)))
                    .add(hits, round -> timed(() -> files.read(files.parquet, files.cacheDir(),
                            1L << 40, dec, m)))
                    .add(pqRead, round -> files.readTablesOnly())
                    .add(subject, round -> {
                        long t0 = System.nanoTime();
                        byte[] ipc = ArrowShards.encode(t, sel);
                        long t1 = System.nanoTime();
                        ShardArrays s = dec.openArrays(ipc, m);
                        long t2 = System.nanoTime();
                        s.close();
                        round.record(encode, (t1 - t0) / 1e9);
                        round.record(decode, (t2 - t1) / 1e9);
                        return (t2 - t0) / 1e9;
                    })
                    .add(memcpy, round -> {
                        src.clear();
                        dst.clear();
                        long t0 = System.nanoTime();
                        dst.put(src);
                        return (System.nanoTime() - t0) / 1e9;
                    })
                    .add(fresh, round -> {
                        src.clear();
                        long t0 = System.nanoTime();
                        try (NDArray a = m.create(new Shape(bytes), DataType.INT8)) {
                            a.toByteBuffer(true).put(src);
                            return (System.nanoTime() - t0) / 1e9;
                        }
                    })
                    .add(heap, round -> {
                        long t0 = System.nanoTime();
                        System.arraycopy(heapSrc, 0, heapDst, 0, n);
                        return (System.nanoTime() - t0) / 1e9;
                    })
                    .add(noIpc, round -> {
                        long t0 = System.nanoTime();
                        ShardArrays s = TableArrays.openArrays(t, sel, m);
                        long t1 = System.nanoTime();
                        s.close();
                        return (t1 - t0) / 1e9;
                    })
                    .run();
            workerRead = workerRead(files, memcpy, pqCold, arCold, hits, pqRead);
        }
        double ratio = subject.medianMbPerSecond() / memcpy.medianMbPerSecond();
        double[] s = subject.seconds();
        double[] c = memcpy.seconds();
        double[] paired = new double[s.length];
        for (int i = 0; i < s.length; i++) {
            paired[i] = c[i] / s[i];
        }
        print(name, rows, f, ratio, subject, encode, decode, memcpy, fresh, heap, noIpc, pqCold,
                arCold, hits, pqRead);

        Map<String, Object> out = new LinkedHashMap<>();
        out.put("name", name);
        out.put("rows", rows);
        out.put("features", f);
        out.put("payload_bytes", bytes);
        out.put("ipc_bytes", ipcBytes[0]);
        out.put("ratio", TrialTimes.round(ratio, 4));
        out.put("paired_ratios", java.util.Arrays.stream(paired)
                .map(x -> TrialTimes.round(x, 4)).toArray());
        out.put("paired_ratio_median", TrialTimes.round(TrialTimes.median(paired), 4));
        out.put("subject", subject.toJson(SUBJECT));
        Map<String, Object> parts = new LinkedHashMap<>();
        parts.put("encode", encode.toJson("ArrowShards.encode: read the Tablesaw columns as"
                + " floats, transpose to row-major, write the IPC stream into a byte[]"));
        parts.put("decode", decode.toJson("ShardDecoder.openArrays: parse the IPC metadata,"
                + " allocate PyTorch tensors, one bulk copy per buffer"));
        out.put("subject_parts", parts);
        out.put("peer", memcpy.toJson(PEER));
        Map<String, Object> context = new LinkedHashMap<>();
        context.put("memcpy_fresh_tensor", fresh.toJson("allocate a PyTorch tensor of the same"
                + " bytes (NDManager.create, uninitialised) and copy the warm direct source into"
                + " it: the first touch of fresh pages, as the decoder's destination has"));
        context.put("arraycopy_warm_heap", heap.toJson("System.arraycopy between two warm heap"
                + " byte[]"));
        context.put("tablesaw_ndarray_no_ipc", noIpc.toJson("TableArrays.openArrays: Tablesaw"
                + " straight into PyTorch tensors in one JVM, no Arrow bytes"));
        out.put("context", context);
        out.put("worker_read", workerRead);
        return out;
    }

    @SuppressWarnings("unchecked")
    private static double lowest(List<Map<String, Object>> datasets, String key) {
        return datasets.stream().filter(d -> d.containsKey("worker_read"))
                .mapToDouble(d -> (double) ((Map<String, Object>) d.get("worker_read")).get(key))
                .min().orElse(Double.NaN);
    }

    /** The worker-read path's trials, each against the same memcpy. */
    private static Map<String, Object> workerRead(WorkerReadFiles files, TrialTimes memcpy,
            TrialTimes pq, TrialTimes ar, TrialTimes hits, TrialTimes pqRead) {
        Map<String, Object> w = new LinkedHashMap<>();
        w.put("what", "a worker reads its shard from files (FileShard.open): every unit (row group"
                + " or record batch of " + WorkerReadFiles.ROWS_PER_GROUP
                + " rows) read, encoded as a"
                + " shard and decoded into the same NDArrays, the next unit prefetched on a"
                + " second thread while the current one decodes");
        w.put("units", files.units());
        w.put("parquet_file_bytes", files.parquetBytes());
        w.put("ratio_parquet_no_cache", TrialTimes.round(pq.medianMbPerSecond()
                / memcpy.medianMbPerSecond(), 4));
        w.put("ratio_arrow_no_cache", TrialTimes.round(ar.medianMbPerSecond()
                / memcpy.medianMbPerSecond(), 4));
        w.put("ratio_cache_hits", TrialTimes.round(hits.medianMbPerSecond()
                / memcpy.medianMbPerSecond(), 4));
        w.put("parquet_no_cache", pq.toJson("Parquet row groups (snappy) -> Tablesaw ->"
                + " shard encode -> decode, no cache: a first epoch's read"));
        w.put("arrow_no_cache", ar.toJson("Arrow IPC file record batches -> Tablesaw -> shard"
                + " encode -> decode, no cache"));
        w.put("parquet_to_tablesaw", pqRead.toJson("context: only the Parquet reading of the"
                + " no-cache path, every row group into a Tablesaw table (ParquetFiles), on one"
                + " thread, no encode, no decode"));
        w.put("cache_hits", hits.toJson("every unit found in the node's disk cache (encoded"
                + " shard bytes, page-cached) -> decode: a restarted worker's or a later job's"
                + " read"));
        return w;
    }

    /** Checks once, untimed, that each file path gives the kernel path's arrays. */
    private static void checkFiles(Table t, ColumnSelection sel, WorkerReadFiles files,
            ShardDecoder dec, NDManager m) {
        try (ShardArrays want = TableArrays.openArrays(t, sel, m);
                ShardArrays pq = files.read(files.parquet, files.cacheDir(), 1L << 40, dec, m);
                ShardArrays ar = files.read(files.arrow, null, 0, dec, m)) {
            for (ShardArrays got : List.of(pq, ar)) {
                if (!got.features().contentEquals(want.features())
                        || !got.labels().contentEquals(want.labels())) {
                    throw new IllegalStateException("A shard read from files differs from the"
                            + " table's; P6 measured a broken path. Run WorkerReadDataTest.");
                }
            }
        }
    }

    /** Checks once, untimed, that the data path gives the same arrays as the direct copy. */
    private static long check(Table t, ColumnSelection sel, ShardDecoder dec, NDManager m) {
        byte[] ipc = ArrowShards.encode(t, sel);
        try (ShardArrays a = dec.openArrays(ipc, m);
                ShardArrays b = TableArrays.openArrays(t, sel, m)) {
            if (a.rows() != t.rowCount() || a.featureCount() != sel.featureCount()
                    || !a.features().contentEquals(b.features())
                    || !a.labels().contentEquals(b.labels())) {
                throw new IllegalStateException(
                        "The decoded shard differs from TableArrays.openArrays; P6 measured a"
                                + " broken data path. Run ArrowShardsTest.");
            }
        }
        return ipc.length;
    }

    private static void print(String name, int rows, int f, double ratio, TrialTimes... all) {
        System.out.printf("%s: %,d rows x %d features, %.1f MB payload; ratio %.3f (goal %.2f)%n",
                name, rows, f, all[0].medianMbPerSecond() * all[0].medianSeconds(), ratio, GOAL);
        for (TrialTimes s : all) {
            System.out.printf("  %-26s %9.1f MB/s  median %.4f s%n",
                    s.name(), s.medianMbPerSecond(), s.medianSeconds());
        }
    }
}

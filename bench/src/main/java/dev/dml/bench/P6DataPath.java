package dev.dml.bench;

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
 * <p>Two data sets: the synthetic fraud table (1M rows, 31 features) and Fashion-MNIST's 60,000
 * training images (784 features) from Debian's package. The result's ratio is the lower of the two.
 */
final class P6DataPath implements Benchmark {

    static final double GOAL = 0.25;
    static final int WARMUPS = 2;
    static final int REPETITIONS = 7;
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
                .put("ratio_is", "the lower over the data sets of median(subject MB/s) /"
                        + " median(peer MB/s)")
                .put("subject", SUBJECT)
                .put("peer", PEER)
                .put("bytes_are", "the payload delivered: rows * F * 4 (float32 features) +"
                        + " rows * 4 (int32 labels); MB = 10^6 bytes")
                .put("method", "one process; " + WARMUPS + " warm-up rounds, then "
                        + REPETITIONS + " timed rounds; each round runs every trial once,"
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

        TrialTimes subject = new TrialTimes("tablesaw_arrow_ndarray", bytes);
        TrialTimes encode = new TrialTimes("encode", bytes);
        TrialTimes decode = new TrialTimes("decode", bytes);
        TrialTimes memcpy = new TrialTimes("memcpy_warm_direct", bytes);
        TrialTimes fresh = new TrialTimes("memcpy_fresh_tensor", bytes);
        TrialTimes heap = new TrialTimes("arraycopy_warm_heap", bytes);
        TrialTimes noIpc = new TrialTimes("tablesaw_ndarray_no_ipc", bytes);
        long[] ipcBytes = new long[1];
        try (ShardDecoder dec = new ShardDecoder(root, "p6/" + name)) {
            ipcBytes[0] = check(t, sel, dec, m);
            new SideBySide(WARMUPS, REPETITIONS)
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
        }
        double ratio = subject.medianMbPerSecond() / memcpy.medianMbPerSecond();
        double[] s = subject.seconds();
        double[] c = memcpy.seconds();
        double[] paired = new double[s.length];
        for (int i = 0; i < s.length; i++) {
            paired[i] = c[i] / s[i];
        }
        print(name, rows, f, ratio, subject, encode, decode, memcpy, fresh, heap, noIpc);

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
        return out;
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

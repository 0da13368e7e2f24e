package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDManager;
import java.nio.ByteBuffer;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * Measures the data path (Tablesaw -> Arrow IPC bytes -> NDArray) against plain memory copies of
 * the same number of bytes. Prints the numbers; asserts only that the results are right.
 * Run: mvn -pl ray-backend test -Pslow -Dtest=DataPathThroughputTest
 */
@Tag("slow")
class DataPathThroughputTest {

    private static final int REPEATS = 5;

    @Test
    void syntheticFraudOneMillionRows() {
        Table t = SyntheticFraud.generate(1_000_000, 5);
        measure("fraud 1M x 31", t, SyntheticFraud.selection());
    }

    @Test
    void fashionMnistTrain() {
        org.junit.jupiter.api.Assumptions.assumeTrue(java.nio.file.Files.isRegularFile(
                FashionMnist.DEBIAN_DIR.resolve("train-images-idx3-ubyte.gz")));
        Table t = FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TRAIN, 0).toTable();
        measure("fashion-mnist 60k x 784", t, FashionMnist.selection());
    }

    private static void measure(String name, Table t, ColumnSelection sel) {
        int rows = t.rowCount();
        long bytes = (long) rows * sel.featureCount() * 4 + rows * 4L;
        try (BufferAllocator root = new RootAllocator();
                NDManager m = NDManager.newBaseManager("PyTorch")) {
            double encode = Double.MAX_VALUE;
            double decode = Double.MAX_VALUE;
            double split = Double.MAX_VALUE;
            double direct = Double.MAX_VALUE;
            byte[] ipc = null;
            for (int i = 0; i < REPEATS; i++) {
                long t0 = System.nanoTime();
                ipc = ArrowShards.encode(t, sel);
                long t1 = System.nanoTime();
                try (ShardDecoder dec = new ShardDecoder(root, "bench/0");
                        ShardArrays s = dec.openArrays(ipc, m)) {
                    long t2 = System.nanoTime();
                    assertEquals(rows, s.rows());
                    encode = Math.min(encode, (t1 - t0) / 1e9);
                    decode = Math.min(decode, (t2 - t1) / 1e9);
                }
                long t3 = System.nanoTime();
                List<byte[]> shards = ArrowShards.splitByRows(t, sel, 4);
                long t4 = System.nanoTime();
                split = Math.min(split, (t4 - t3) / 1e9);
                assertEquals(4, shards.size());
                long t5 = System.nanoTime();
                try (ShardArrays s = TableArrays.openArrays(t, sel, m)) {
                    direct = Math.min(direct, (System.nanoTime() - t5) / 1e9);
                    assertEquals(rows, s.rows());
                }
            }
            byte[] src = new byte[(int) bytes];
            java.util.Arrays.fill(src, (byte) 1);
            byte[] dst = new byte[(int) bytes];
            ByteBuffer dsrc = ByteBuffer.allocateDirect((int) bytes);
            ByteBuffer ddst = ByteBuffer.allocateDirect((int) bytes);
            double heapCopy = Double.MAX_VALUE;
            double directCopy = Double.MAX_VALUE;
            double freshCopy = Double.MAX_VALUE;
            for (int i = 0; i < REPEATS; i++) {
                long f0 = System.nanoTime();
                try (ai.djl.ndarray.NDArray fresh = m.create(new ai.djl.ndarray.types.Shape(bytes),
                        ai.djl.ndarray.types.DataType.INT8)) {
                    fresh.toByteBuffer(true).put(ByteBuffer.wrap(src));
                    freshCopy = Math.min(freshCopy, (System.nanoTime() - f0) / 1e9);
                }
                long t0 = System.nanoTime();
                System.arraycopy(src, 0, dst, 0, src.length);
                long t1 = System.nanoTime();
                dsrc.clear();
                ddst.clear();
                ddst.put(dsrc);
                long t2 = System.nanoTime();
                heapCopy = Math.min(heapCopy, (t1 - t0) / 1e9);
                directCopy = Math.min(directCopy, (t2 - t1) / 1e9);
            }
            double mb = bytes / 1e6;
            System.out.printf("%s: %.1f MB of float32 features + int32 labels, IPC %d bytes%n",
                    name, mb, ipc.length);
            System.out.printf("  Tablesaw -> Arrow IPC bytes : %8.1f MB/s (%.3f s)%n", mb / encode, encode);
            System.out.printf("  IPC bytes -> NDArray         : %8.1f MB/s (%.3f s)%n", mb / decode, decode);
            System.out.printf("  Tablesaw -> Arrow -> NDArray : %8.1f MB/s (%.3f s)%n",
                    mb / (encode + decode), encode + decode);
            System.out.printf("  split into 4 shards          : %8.1f MB/s (%.3f s)%n", mb / split, split);
            System.out.printf("  Tablesaw -> NDArray (no IPC) : %8.1f MB/s (%.3f s)%n", mb / direct, direct);
            System.out.printf("  memcpy heap byte[]           : %8.1f MB/s (%.3f s)%n", mb / heapCopy, heapCopy);
            System.out.printf("  memcpy direct ByteBuffer     : %8.1f MB/s (%.3f s)%n", mb / directCopy, directCopy);
            System.out.printf("  memcpy byte[] -> new tensor  : %8.1f MB/s (%.3f s)%n", mb / freshCopy, freshCopy);
        }
    }
}

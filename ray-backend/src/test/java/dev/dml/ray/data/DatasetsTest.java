package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.dml.DmlException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

class DatasetsTest {

    /** The folder with Fashion-MNIST: system property dml.fashionMnist.dir, else Debian's. */
    static Path fashionDir() {
        String p = System.getProperty("dml.fashionMnist.dir");
        return p != null ? Path.of(p) : FashionMnist.DEBIAN_DIR;
    }

    static void assumeFashionMnist() {
        assumeTrue(Files.isRegularFile(fashionDir().resolve("t10k-labels-idx1-ubyte.gz")),
                "Fashion-MNIST is not installed: apt-get install dataset-fashion-mnist");
    }

    @Test
    void syntheticFraudIsDeterministicAndImbalanced() {
        Table a = SyntheticFraud.generate(50_000, 42);
        Table b = SyntheticFraud.generate(50_000, 42);
        Table c = SyntheticFraud.generate(50_000, 43);
        assertEquals(32, a.columnCount());
        assertArrayEquals(a.doubleColumn("v17").asDoubleArray(),
                b.doubleColumn("v17").asDoubleArray());
        assertArrayEquals(a.intColumn("is_fraud").asIntArray(),
                b.intColumn("is_fraud").asIntArray());
        assertTrue(a.doubleColumn("v1").getDouble(0) != c.doubleColumn("v1").getDouble(0));
        double rate = a.intColumn("is_fraud").sum() / 50_000.0;
        assertTrue(rate > 0.007 && rate < 0.013, "positive rate " + rate);
        assertTrue(a.doubleColumn("amount").min() > 0);
        assertEquals(2, TableValidator.validate(a, SyntheticFraud.selection()));
        // The first rows of a bigger table are the same rows.
        Table small = SyntheticFraud.generate(100, 42);
        assertEquals(small.doubleColumn("amount").getDouble(99),
                a.doubleColumn("amount").getDouble(99));
    }

    @Test
    void fashionMnistSubsetLoads() {
        assumeFashionMnist();
        FashionMnist test = FashionMnist.load(fashionDir(), FashionMnist.Split.TEST, 500);
        assertEquals(500, test.size());
        assertEquals(500 * 784, test.pixels().length);
        // The first t10k image is an ankle boot (class 9).
        assertEquals(9, test.labels()[0]);
        for (float p : test.pixels()) {
            assertTrue(p >= 0f && p <= 1f);
        }
        Table t = test.toTable();
        assertEquals(785, t.columnCount());
        assertEquals(10, TableValidator.validate(t, FashionMnist.selection()));
        assertEquals(test.pixels()[3 * 784 + 400], (float) t.numberColumn("px400").getDouble(3));
    }

    @Test
    void missingFashionMnistFolderIsExplained(@org.junit.jupiter.api.io.TempDir Path empty) {
        DmlException e = assertThrows(DmlException.class,
                () -> FashionMnist.load(empty, FashionMnist.Split.TRAIN, 10));
        assertTrue(e.hint().contains("apt-get install dataset-fashion-mnist"), e.hint());
    }
}

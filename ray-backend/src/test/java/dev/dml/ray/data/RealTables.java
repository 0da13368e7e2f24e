package dev.dml.ray.data;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import tech.tablesaw.api.Table;

/** The real tables under {@code src/test/resources/datasets} (their README names the sources). */
public final class RealTables {

    private RealTables() {}

    /** 569 tumours, 30 measurements, {@code diagnosis}: malignant or benign. */
    public static Table breastCancer() {
        return read("breast_cancer.csv");
    }

    /** 150 flowers, 4 measurements, {@code species}: setosa, versicolor or virginica. */
    public static Table iris() {
        return read("iris.csv");
    }

    /** 442 patients, 10 baseline values, {@code progression}: a score one year later. */
    public static Table diabetes() {
        return read("diabetes.csv");
    }

    /**
     * 344 penguins: {@code species} (Adelie, Chinstrap, Gentoo), two text features ({@code
     * island}, {@code sex}, 11 missing) and four measurements (2 rows missing them), {@code
     * year}.
     */
    public static Table penguins() {
        return read("penguins.csv");
    }

    /**
     * The folder of Fashion-MNIST (the Debian package {@code dataset-fashion-mnist}, or the
     * folder {@code -Ddml.fashionMnist.dir} names); skips the test where it is missing.
     */
    public static Path fashionMnistDir() {
        String p = System.getProperty("dml.fashionMnist.dir");
        Path d = p != null ? Path.of(p) : FashionMnist.DEBIAN_DIR;
        assumeTrue(Files.isRegularFile(d.resolve("train-images-idx3-ubyte.gz")),
                "Fashion-MNIST is not installed: apt-get install dataset-fashion-mnist");
        return d;
    }

    /** The file of a table, for tests that read files. */
    public static Path path(String file) {
        try {
            return Path.of(RealTables.class.getResource("/datasets/" + file).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Table read(String file) {
        return TableReaders.readCsv(path(file));
    }
}

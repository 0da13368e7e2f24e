package dev.dml.ray.data;

import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import tech.tablesaw.api.Table;

/**
 * Small real tables from scikit-learn's own package (digits, iris, wine, breast_cancer) and a
 * synthetic 32x32x3 image table, written to Parquet by pandas in the test itself
 * ({@code src/test/python/write_sklearn_tables.py}), split once, with scikit-learn's
 * LogisticRegression score on the same split.
 */
public final class SklearnTables {

    /**
     * One table's split and the score to compare with.
     *
     * @param train the training rows
     * @param test the held-out rows
     * @param logisticRegression scikit-learn's held-out accuracy on the same split
     */
    public record Split(Table train, Table test, double logisticRegression) {}

    private final Path dir;
    private final Map<String, String> written;

    private SklearnTables(Path dir, Map<String, String> written) {
        this.dir = dir;
        this.written = written;
    }

    /**
     * Writes the named tables into a folder.
     *
     * @param dir the folder
     * @param names digits, iris, wine, breast_cancer or rgb32
     * @return the tables
     */
    public static SklearnTables write(Path dir, String... names) {
        Python.requireSklearn();
        String[] args = new String[names.length + 1];
        args[0] = dir.toString();
        System.arraycopy(names, 0, args, 1, names.length);
        return new SklearnTables(dir, Python.runScript("write_sklearn_tables.py", args));
    }

    /**
     * Reads one table's split back as dml reads a user's files.
     *
     * @param name a name given to {@link #write}
     * @return its split
     */
    public Split split(String name) {
        try (RootAllocator allocator = new RootAllocator()) {
            return new Split(TableReaders.read(dir.resolve(name + "_train.parquet"), allocator),
                    TableReaders.read(dir.resolve(name + "_test.parquet"), allocator),
                    Double.parseDouble(written.get(name + "_logreg")));
        }
    }
}

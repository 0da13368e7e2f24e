package dev.dml.ray.train;

import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.data.SklearnTables;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.io.TempDir;

/** A test class on scikit-learn's tables ({@link SklearnTables}) with Ray in LOCAL mode. */
abstract class SklearnTableCase {

    @TempDir
    static Path dir;
    static SklearnTables tables;

    /** Writes the named tables and starts Ray: call it from the class's {@code @BeforeAll}. */
    static void start(String... names) throws IOException {
        tables = SklearnTables.write(dir, names);
        LocalRay.start();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }
}

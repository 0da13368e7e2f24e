package dev.dml.ray.train;

import dev.dml.ray.collective.LocalRayExtension;
import dev.dml.ray.data.SklearnTables;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A test class on scikit-learn's tables ({@link SklearnTables}) with Ray in LOCAL mode. */
@ExtendWith(LocalRayExtension.class)
abstract class SklearnTableCase {

    @TempDir
    static Path dir;
    static SklearnTables tables;

    /** Writes the named tables (Ray runs already): call it from the class's {@code @BeforeAll}. */
    static void start(String... names) throws IOException {
        tables = SklearnTables.write(dir, names);
    }
}

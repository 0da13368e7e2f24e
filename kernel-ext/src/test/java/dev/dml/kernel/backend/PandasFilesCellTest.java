package dev.dml.kernel.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dml.magics.TrainRequest;
import dev.dml.ray.train.TrainSpec;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files pandas writes with its defaults, given to {@code %dml train} as a user gives them: the
 * index pandas stores beside a shuffled frame's columns is not trained on, in the kernel or with
 * {@code --read-on-workers}, and a Feather file with text and a categorical trains on them.
 * The files come from ray-backend's {@code write_pandas.py} (see PandasFilesTest there).
 */
class PandasFilesCellTest {

    @TempDir
    static Path dir;

    @BeforeAll
    static void write() throws Exception {
        Process p = new ProcessBuilder("python3", Path.of(System.getProperty("basedir", "."),
                "..", "ray-backend", "src", "test", "python", "write_pandas.py").toString(),
                dir.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), "write_pandas.py needs python3 with pandas: " + out);
    }

    private static TrainSpec spec(String line) {
        return TrainRequests.spec(TrainRequest.parse(List.of(line.split(" ")), null),
                NotebookData.filesOnly());
    }

    @Test
    void aShuffledFramesIndexIsNoFeatureInTheKernelOrOnWorkers() {
        for (String f : List.of("shuffled.parquet", "shuffled.feather")) {
            String file = dir.resolve(f).toString();
            assertEquals(List.of("x", "k", "name", "cat"),
                    spec(file + " --label y").columns().features(), f);
            assertEquals(12, spec(file + " --label y").trainTable().rowCount(), f);
        }
        assertEquals(List.of("x", "k", "name", "cat"), spec(dir.resolve("shuffled.parquet")
                + " --label y --read-on-workers").columns().features());
    }
}

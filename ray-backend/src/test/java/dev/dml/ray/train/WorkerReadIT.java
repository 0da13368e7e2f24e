package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.EpochMetrics;
import dev.dml.ray.Dml;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.DataFileFixtures;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * Training from Parquet files the workers read themselves, on a real local cluster: the
 * breast-cancer table (a text label) written by pyarrow as 12 row groups, 2 workers, each
 * reading its own row groups through the node's cache, and a second job that finds every row
 * group in that cache.
 */
@Tag("cluster")
class WorkerReadIT extends LocalClusterTests {

    @TempDir
    static Path dir;

    @Test
    void twoWorkersTrainFromParquetRowGroupsAndALaterJobReadsThemFromTheCache()
            throws Exception {
        Path file = DataFileFixtures.write("breast_cancer.csv", dir.resolve("cancer.parquet"),
                1000, "snappy", 20); // 11,380 rows in 12 row groups
        Table check = RealTables.breastCancer();
        Path tmp = Files.createDirectories(dir.resolve("worker-tmp"));
        TrainSpecBuilder b = TrainSpec.builder().setFiles(file.toString())
                .setColumns(ColumnSelection.allExcept(check, "diagnosis", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 16).optOptimizer(OptimizerSpec.adam(1e-3f))
                .optEpochs(3).optWorkers(2).optBatchSize(64).optCpusPerWorker(0.5)
                .optValidationTable(check)
                .addWorkerJvmOption("-Djava.io.tmpdir=" + tmp); // the node's cache lives here
        TrainResult r = Dml.start(b.optName("parquet2").build(), driver)
                .await(Duration.ofMinutes(4));
        EpochMetrics last = r.epochs().get(r.epochs().size() - 1);
        System.out.printf("worker-read parquet, 2 workers: accuracy %.4f, %.0f examples/s%n",
                last.validationAccuracy(), last.examplesPerSecond());
        // the majority class (benign) alone scores 0.627
        assertTrue(last.validationAccuracy() >= 0.9, r.epochs().toString());
        assertEquals(List.of("benign", "malignant"), r.columns().classNames());
        Path cache = tmp.resolve("dml-data-cache-" + System.getProperty("user.name"));
        Map<Path, FileTime> first = entries(cache);
        assertEquals(12, first.size(), "one entry per row group: " + first.keySet());

        Thread.sleep(1100); // file times have a resolution of a second on some file systems
        TrainResult again = Dml.start(b.optEpochs(1).optName("parquet2-again").build(), driver)
                .await(Duration.ofMinutes(4));
        assertEquals(1, again.epochs().size());
        Map<Path, FileTime> second = entries(cache);
        assertEquals(first.keySet(), second.keySet(), "no row group was read into a new entry");
        for (Path p : first.keySet()) {
            assertTrue(second.get(p).compareTo(first.get(p)) > 0,
                    "the second job did not use " + p);
        }
    }

    private static Map<Path, FileTime> entries(Path cache) throws Exception {
        Map<Path, FileTime> out = new TreeMap<>();
        try (Stream<Path> s = Files.list(cache)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                if (p.toString().endsWith(".arrows")) {
                    out.put(p, Files.getLastModifiedTime(p));
                }
            }
        }
        return out;
    }
}

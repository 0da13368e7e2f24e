package dev.dml.ray.train.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.DataFileFixtures;
import dev.dml.ray.data.FileShard;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.RealTables;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainSpecBuilder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/** A spec over worker-read files resolves from the files alone and sends references. */
class WorkerReadSpecTest {

    @TempDir
    static Path dir;
    static Path file;
    static final Table CANCER = RealTables.breastCancer();

    @BeforeAll
    static void write() {
        file = DataFileFixtures.write("breast_cancer.csv", dir.resolve("cancer.parquet"), 100,
                "zstd", 2); // 1138 rows in 12 row groups
    }

    private static TrainSpecBuilder builder() {
        return TrainSpec.builder().setFiles(file.toString())
                .setColumns(ColumnSelection.allExcept(CANCER, "diagnosis", LabelKind.CLASSES))
                .setModel(ModelSpec.Family.MLP, 8).optWorkers(2).optBatchSize(50);
    }

    @Test
    void theSpecIsResolvedFromTheFilesAndSendsReferencesNotRows() {
        TrainSpec spec = builder().build();
        assertEquals(1138, spec.trainRows());
        assertEquals(List.of("benign", "malignant"), spec.columns().classNames());
        assertEquals(30, spec.model().inputs());
        assertEquals(2, spec.model().outputs());
        // 11 row groups of 100 and one of 38, dealt by rows: shards of 600 and 538 rows
        assertEquals(538 / 50, spec.stepsPerEpoch());
        List<byte[]> shards = JobRunner.of(spec, "test", Duration.ofMinutes(1)).shards();
        assertEquals(2, shards.size());
        for (byte[] s : shards) {
            assertTrue(FileShard.isFileShard(s));
            assertTrue(s.length < 64 * 1024, "a reference, not rows: " + s.length + " bytes");
        }
        assertEquals(1138, shards.stream().map(FileShard::fromBytes)
                .mapToLong(FileShard::rows).sum());
    }

    @Test
    void whatNeedsTheRowsInTheKernelIsRefusedInOneLine() {
        DmlException fraction = assertThrows(DmlException.class,
                () -> builder().optValidationFraction(0.2).build());
        assertTrue(fraction.what().endsWith("the kernel never holds the rows."), fraction.what());
        DmlException stratify = assertThrows(DmlException.class,
                () -> builder().optStratify(true).build());
        assertTrue(stratify.what().contains("deals rows by class"), stratify.what());
        DmlException cache = assertThrows(DmlException.class, () -> TrainSpec.builder()
                .setTable(CANCER).setColumns(ColumnSelection.allExcept(CANCER, "diagnosis",
                        LabelKind.CLASSES)).setModel(ModelSpec.Family.MLP, 8)
                .opt(TrainOptions.DATA_CACHE_MB, 100).build());
        assertTrue(cache.what().contains("sizes the cache of files the workers read"),
                cache.what());
        DmlException both = assertThrows(DmlException.class,
                () -> builder().setTable(CANCER).build());
        assertEquals("The spec has both a table and files to read on the workers.", both.what());
    }
}

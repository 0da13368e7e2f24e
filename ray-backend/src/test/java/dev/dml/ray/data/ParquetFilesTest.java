package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.Table;

/**
 * Reads Parquet files pyarrow wrote from a real table (the Palmer penguins: strings, int64,
 * doubles and missing cells) and checks them cell by cell against the same table read from CSV.
 */
class ParquetFilesTest {

    @TempDir
    static Path dir;

    @BeforeAll
    static void pyarrow() {
        Python.requirePyarrow();
    }

    /** Writes penguins.csv as Parquet with pyarrow; returns the file. */
    static Path penguins(Path dir, String name, int perGroup, String codec) {
        return DataFileFixtures.write("penguins.csv", dir.resolve(name), perGroup, codec, 1);
    }

    @Test
    void snappyAndZstdFilesReadAsTheCsvDoes() {
        Table csv = RealTables.penguins();
        for (String codec : List.of("snappy", "zstd", "gzip", "none")) {
            Path file = penguins(dir, "penguins-" + codec + ".parquet", 100, codec);
            Table t;
            try (RootAllocator a = new RootAllocator()) {
                t = TableReaders.read(file, a);
            }
            assertEquals("penguins-" + codec, t.name());
            assertEquals(csv.columnNames(), t.columnNames(), codec);
            assertEquals(csv.rowCount(), t.rowCount(), codec);
            for (String c : csv.columnNames()) {
                assertEquals(csv.column(c).countMissing(), t.column(c).countMissing(), c);
                for (int r = 0; r < csv.rowCount(); r++) {
                    assertEquals(csv.column(c).getString(r), t.column(c).getString(r),
                            codec + " " + c + " row " + r);
                }
            }
        }
    }

    @Test
    void rowGroupsReadOneAtATimeWithOnlyTheirColumns() {
        Path file = penguins(dir, "groups.parquet", 100, "snappy");
        assertArrayEquals(new long[] {100, 100, 100, 44}, ParquetFiles.rowGroupRows(file));
        Table csv = RealTables.penguins();
        Table g = ParquetFiles.readRowGroup(file, 2, List.of("species", "body_mass_g"));
        assertEquals(List.of("species", "body_mass_g"), g.columnNames());
        assertEquals(100, g.rowCount());
        for (int r = 0; r < 100; r++) {
            assertEquals(csv.column("species").getString(200 + r), g.column(0).getString(r));
            assertEquals(csv.column("body_mass_g").getString(200 + r), g.column(1).getString(r));
        }
    }

    @Test
    void notParquetIsExplained() throws Exception {
        Path bad = dir.resolve("bad.parquet");
        Files.writeString(bad, "species,island\nAdelie,Dream\n");
        DmlException e = assertThrows(DmlException.class, () -> ParquetFiles.read(bad));
        assertTrue(e.getMessage().contains("Could not read Parquet file"), e.getMessage());
    }
}

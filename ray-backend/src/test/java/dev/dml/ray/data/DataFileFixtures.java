package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;

/** Parquet and Arrow IPC files pyarrow writes from the real tables, for worker-read tests. */
public final class DataFileFixtures {

    private DataFileFixtures() {}

    /**
     * Writes a real table's CSV as a Parquet file (or an Arrow IPC file, for an {@code .arrow}
     * name) with pyarrow.
     *
     * @param csv a file under the test datasets, such as {@code penguins.csv}
     * @param out the file to write
     * @param rowsPerGroup rows per row group (record batch)
     * @param codec the Parquet compression, such as {@code snappy}
     * @param copies how many times the rows repeat
     * @return {@code out}
     */
    public static Path write(String csv, Path out, int rowsPerGroup, String codec, int copies) {
        Python.requirePyarrow();
        Map<String, String> kv = Python.runScript("write_parquet.py",
                RealTables.path(csv).toString(), out.toString(),
                Integer.toString(rowsPerGroup), codec, Integer.toString(copies));
        assertEquals(true, kv.containsKey("rows"), "write_parquet.py printed " + kv);
        return out;
    }
}

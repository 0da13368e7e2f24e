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

    /**
     * Writes the measured penguins as pandas users write them, shuffled (so pandas stores the
     * index as a column) with text categoricals: {@code penguins.feather} with to_feather's
     * defaults and {@code penguins.parquet} with Brotli.
     *
     * @param dir the folder to write into
     * @return the number of rows written
     */
    public static int writePandasPenguins(Path dir) {
        Python.requirePandas();
        Map<String, String> kv = Python.runScript("write_penguins_pandas.py",
                RealTables.path("penguins.csv").toString(), dir.toString());
        return Integer.parseInt(kv.get("rows"));
    }
}

package dev.dml.ray.data;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.csv.CsvReadOptions;

/**
 * Reads the inputs a user has, a CSV file, an Arrow IPC file or stream, or a Parquet file, into a Tablesaw table
 * or straight into shards.
 *
 * <p>Allocators passed in are borrowed; every Arrow buffer is released before a method returns.
 */
public final class TableReaders {

    private static final byte[] ARROW_FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

    private TableReaders() {}

    /**
     * Reads a CSV file with a header row; column types are inferred and empty cells are missing.
     *
     * @param path the file
     * @return the table, named after the file
     */
    public static Table readCsv(Path path) {
        requireFile(path);
        try {
            CsvReadOptions opts =
                    CsvReadOptions.builder(path.toFile()).tableName(baseName(path)).build();
            Table t = Table.read().csv(opts);
            if (t.rowCount() == 0) {
                throw new DmlException("The CSV file " + DmlException.literal(path) + " has no"
                        + " rows.",
                        "Write the rows too (a filter that kept none leaves a header only).");
            }
            return t;
        } catch (DmlException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new DmlException(
                    "Could not read CSV file " + path + ": " + e.getMessage(),
                    "Check that it is comma-separated with one header row.",
                    e);
        }
    }

    /**
     * Reads an Arrow IPC file ({@code ARROW1} magic) or IPC stream, whichever {@code path} holds.
     * Numeric, boolean and string columns become Tablesaw columns; a shard's FixedSizeList
     * feature column is expanded into one column per feature.
     *
     * @param path the file
     * @param allocator a borrowed allocator for the reader's buffers
     * @return the table, named after the file
     */
    public static Table readArrow(Path path, BufferAllocator allocator) {
        requireFile(path);
        try (BufferAllocator child =
                allocator.newChildAllocator("read/" + baseName(path), 0, Long.MAX_VALUE)) {
            boolean isFile = hasFileMagic(path);
            FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
            try (ArrowReader reader = isFile
                    ? new ArrowFileReader(ch, child, ArrowCodecs.INSTANCE)
                    : new ArrowStreamReader(ch, child, ArrowCodecs.INSTANCE)) {
                return ArrowTables.toTable(reader, baseName(path));
            }
        } catch (IOException e) {
            throw new DmlException(
                    "Could not read Arrow file " + path + ": " + e.getMessage(),
                    "Write it as an Arrow IPC file or stream (pyarrow.ipc.new_file/new_stream).",
                    e);
        }
    }

    /**
     * Reads a CSV ({@code .csv}), Arrow ({@code .arrow}, {@code .arrows}, {@code .ipc}, {@code
     * .feather}) or Parquet ({@code .parquet}, {@code .pq}) file, chosen by extension.
     *
     * @param path the file
     * @param allocator a borrowed allocator, used for Arrow files
     * @return the table
     */
    public static Table read(Path path, BufferAllocator allocator) {
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".csv")) {
            return readCsv(path);
        }
        List<String> arrow = Arrays.asList(".arrow", ".arrows", ".ipc", ".feather");
        if (arrow.stream().anyMatch(name::endsWith)) {
            return readArrow(path, allocator);
        }
        if (isParquet(path)) {
            requireFile(path);
            return ParquetFiles.read(path);
        }
        throw new DmlException(
                "Cannot tell the format of " + path + " from its extension.",
                "Name it .csv, .arrow, .arrows, .ipc, .feather or .parquet, or call"
                        + " readCsv/readArrow/ParquetFiles.read.");
    }

    /**
     * Tells a Parquet file by its extension, {@code .parquet} or {@code .pq}.
     *
     * @param path the file
     * @return {@code true} for a Parquet name
     */
    public static boolean isParquet(Path path) {
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        return name.endsWith(".parquet") || name.endsWith(".pq");
    }

    /**
     * Reads a file ({@link #read}) and splits it into contiguous row shards.
     *
     * @param path the file
     * @param selection the feature and label columns
     * @param shards the number of shards
     * @param allocator a borrowed allocator
     * @return one Arrow IPC stream per shard
     */
    public static List<byte[]> readShards(
            Path path, ColumnSelection selection, int shards, BufferAllocator allocator) {
        return ArrowShards.splitByRows(read(path, allocator), selection, shards);
    }

    private static void requireFile(Path path) {
        if (!Files.isRegularFile(path)) {
            throw new DmlException(
                    "File " + path + " does not exist or is not a regular file.",
                    "Check the path; a relative path is resolved against the notebook's working"
                            + " directory.");
        }
    }

    private static boolean hasFileMagic(Path path) throws IOException {
        try (InputStream in = Files.newInputStream(path)) {
            byte[] head = in.readNBytes(ARROW_FILE_MAGIC.length);
            return Arrays.equals(head, ARROW_FILE_MAGIC);
        }
    }

    private static String baseName(Path path) {
        String n = path.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot > 0 ? n.substring(0, dot) : n;
    }
}

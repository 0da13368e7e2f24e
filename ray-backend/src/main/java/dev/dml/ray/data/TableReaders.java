package dev.dml.ray.data;

import dev.dml.DmlException;
import dev.dml.ray.data.store.DataStore;
import dev.dml.ray.data.store.LocalStore;
import dev.dml.ray.data.store.StoredFile;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Reads the inputs a user has, a CSV file, an Arrow IPC file or stream, or a Parquet file, into a
 * Tablesaw table or straight into shards.
 *
 * <p>Allocators passed in are borrowed; every Arrow buffer is released before a method returns.
 */
public final class TableReaders {

    private static final List<String> ARROW = List.of(".arrow", ".arrows", ".ipc", ".feather");
    private static final byte[] ARROW_FILE_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

    private TableReaders() {}

    /**
     * Reads a CSV file with a header row; column types are inferred and empty cells are missing.
     *
     * @param path the file
     * @return the table, named after the file
     */
    public static Table readCsv(Path path) {
        return readCsv(LocalStore.INSTANCE, localFile(path));
    }

    private static Table readCsv(DataStore store, StoredFile f) {
        try (InputStream in = store.isLocal() ? null
                : Channels.newInputStream(store.open(f))) {
            CsvReadOptions opts = (in == null ? CsvReadOptions.builder(new File(f.url()))
                    : CsvReadOptions.builder(in)).tableName(f.baseName()).build();
            Table t = Table.read().csv(opts);
            if (t.rowCount() == 0) {
                throw new DmlException("The CSV file " + DmlException.literal(f) + " has no"
                        + " rows.",
                        "Write the rows too (a filter that kept none leaves a header only).");
            }
            return t;
        } catch (DmlException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new DmlException(
                    "Could not read CSV file " + f + ": " + e.getMessage(),
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
        return readArrow(LocalStore.INSTANCE, localFile(path), allocator);
    }

    private static Table readArrow(DataStore store, StoredFile f, BufferAllocator allocator) {
        try (BufferAllocator child =
                allocator.newChildAllocator("read/" + f.baseName(), 0, Long.MAX_VALUE)) {
            SeekableByteChannel ch = store.open(f);
            boolean isFile;
            try {
                isFile = hasFileMagic(ch);
                ch.position(0);
            } catch (IOException e) {
                ch.close(); // the readers below own it once they exist
                throw e;
            }
            try (ArrowReader reader = isFile
                    ? new ArrowFileReader(ch, child, ArrowCodecs.INSTANCE)
                    : new ArrowStreamReader(ch, child, ArrowCodecs.INSTANCE)) {
                return ArrowTables.toTable(reader, f.baseName());
            }
        } catch (IOException e) {
            throw new DmlException(
                    "Could not read Arrow file " + f + ": " + e.getMessage(),
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
        if (!name.endsWith(".csv") && !ARROW.stream().anyMatch(name::endsWith)
                && !isParquet(path)) {
            throw unknownFormat(path.toString());
        }
        return read(LocalStore.INSTANCE, localFile(path), allocator);
    }

    /**
     * Reads a file named by a path or URL, such as {@code s3://bucket/clicks.parquet}, in the
     * kernel: a Parquet file by its footer and column chunks, an Arrow file by its batches, a
     * CSV file as one stream ({@link #read(Path, BufferAllocator)} otherwise).
     *
     * @param location a path, a {@code file://} URL or an {@code s3://} URL of one file
     * @param s3Endpoint the endpoint of an S3-compatible store, or null ({@link DataStore#of})
     * @param allocator a borrowed allocator, used for Arrow files
     * @return the table
     */
    public static Table read(String location, String s3Endpoint, BufferAllocator allocator) {
        DataStore store = DataStore.of(location, s3Endpoint);
        if (store.isLocal()) {
            return read(LocalStore.path(location), allocator);
        }
        DataStore.Listing found = store.list(location);
        if (found.kind() != DataStore.Kind.FILE) {
            throw new DmlException("There is no object " + DmlException.literal(location)
                    + (found.kind() == DataStore.Kind.FOLDER ? "; it is a prefix, and the"
                    + " kernel reads one file." : "."), found.kind() == DataStore.Kind.FOLDER
                    ? "Name one of its objects, or add {read-on-workers} to have the workers"
                    + " read its Parquet and Arrow files." : "Check the bucket and key.");
        }
        return read(store, found.files().get(0), allocator);
    }

    private static Table read(DataStore store, StoredFile f, BufferAllocator allocator) {
        String name = f.name().toLowerCase(Locale.ROOT);
        if (name.endsWith(".csv")) {
            return readCsv(store, f);
        }
        if (ARROW.stream().anyMatch(name::endsWith)) {
            return readArrow(store, f, allocator);
        }
        if (name.endsWith(".parquet") || name.endsWith(".pq")) {
            return ParquetFiles.read(store, f);
        }
        throw unknownFormat(f.url());
    }

    private static DmlException unknownFormat(String file) {
        return new DmlException(
                "Cannot tell the format of " + file + " from its extension.",
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

    /** A local file as its store lists it, or one line when it is none. */
    private static StoredFile localFile(Path path) {
        if (!Files.isRegularFile(path)) {
            throw new DmlException(
                    "File " + path + " does not exist or is not a regular file.",
                    "Check the path; a relative path is resolved against the notebook's working"
                            + " directory.");
        }
        try {
            return LocalStore.file(path);
        } catch (IOException e) {
            throw new DmlException("Could not read " + path + ": " + e.getMessage() + ".",
                    "Check that it is readable.", e);
        }
    }

    private static boolean hasFileMagic(SeekableByteChannel ch) throws IOException {
        ByteBuffer head = ByteBuffer.allocate(ARROW_FILE_MAGIC.length);
        while (head.hasRemaining() && ch.read(head) >= 0) {
            // fill
        }
        return Arrays.equals(head.array(), ARROW_FILE_MAGIC) && !head.hasRemaining();
    }
}

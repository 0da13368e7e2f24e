package dev.dml.ray.data;

import dev.dml.DmlException;
import dev.dml.ray.data.store.DataStore;
import dev.dml.ray.data.store.LocalStore;
import dev.dml.ray.data.store.StoredFile;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.example.data.simple.convert.GroupRecordConverter;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Reads flat Parquet files (one value per column and row, as pandas and pyarrow write tables)
 * into Tablesaw tables: a whole file, or one row group, the unit workers read their shards in.
 * Booleans, 32- and 64-bit integers, floats, doubles and strings become the matching Tablesaw
 * columns, decimals doubles; a null becomes a missing value. Nested columns are refused. The index
 * columns pandas stores ({@link PandasIndex}) are left out, as pandas and pyarrow leave them out of
 * the data.
 */
public final class ParquetFiles {

    private ParquetFiles() {}

    /**
     * Reads every row group of a file.
     *
     * @param path the file
     * @return the table, named after the file
     */
    public static Table read(Path path) {
        return read(LocalStore.INSTANCE, local(path), null, -1);
    }

    /**
     * Reads every row group of a file of a store.
     *
     * @param store where it is
     * @param file the file
     * @return the table, named after the file
     */
    public static Table read(DataStore store, StoredFile file) {
        return read(store, file, null, -1);
    }

    /**
     * Reads one row group, only the named columns (all of them when {@code columns} is null).
     *
     * @param path the file
     * @param group the row group, from 0
     * @param columns the columns to read, or null
     * @return the rows of that group
     */
    public static Table readRowGroup(Path path, int group, Collection<String> columns) {
        return read(LocalStore.INSTANCE, local(path), columns, group);
    }

    /**
     * Reads one row group of a file of a store, only the named columns: the footer, then only
     * those columns' chunks of that group.
     *
     * @param store where it is
     * @param file the file
     * @param group the row group, from 0
     * @param columns the columns to read, or null
     * @return the rows of that group
     */
    public static Table readRowGroup(DataStore store, StoredFile file, int group,
            Collection<String> columns) {
        return read(store, file, columns, group);
    }

    /**
     * Returns the row count of each row group, from the file's footer alone.
     *
     * @param path the file
     * @return one count per row group
     */
    public static long[] rowGroupRows(Path path) {
        return rowGroupRows(LocalStore.INSTANCE, local(path));
    }

    /**
     * Returns the row count of each row group, from the file's footer alone.
     *
     * @param store where it is
     * @param file the file
     * @return one count per row group
     */
    public static long[] rowGroupRows(DataStore store, StoredFile file) {
        try (ParquetFileReader r = open(store.parquet(file))) {
            return r.getRowGroups().stream().mapToLong(BlockMetaData::getRowCount).toArray();
        } catch (IOException | RuntimeException e) {
            throw unreadable(file, e);
        }
    }

    /** A local file as its store lists it; a missing one reads as unreadable. */
    private static StoredFile local(Path path) {
        try {
            return LocalStore.file(path);
        } catch (IOException e) {
            throw unreadable(new StoredFile(path.toString(), -1, ""), e);
        }
    }

    private static Table read(DataStore store, StoredFile file, Collection<String> only,
            int group) {
        String path = file.url();
        try (ParquetFileReader r = open(store.parquet(file))) {
            MessageType schema = r.getFooter().getFileMetaData().getSchema();
            Set<String> index = PandasIndex.columns(
                    r.getFooter().getFileMetaData().getKeyValueMetaData());
            List<Type> fields = new ArrayList<>();
            for (Type t : schema.getFields()) {
                if ((only == null || only.contains(t.getName()))
                        && !index.contains(t.getName())) {
                    fields.add(requireFlat(path, t));
                }
            }
            MessageType wanted = new MessageType(schema.getName(), fields);
            r.setRequestedSchema(wanted);
            String createdBy = r.getFooter().getFileMetaData().getCreatedBy();
            List<Column<?>> cols = new ArrayList<>();
            for (Type t : fields) {
                cols.add(newColumn(path, t.asPrimitiveType()));
            }
            if (group >= 0) {
                if (group >= r.getRowGroups().size()) {
                    throw new DmlException("The Parquet file " + path + " has "
                            + r.getRowGroups().size() + " row groups, not " + (group + 1) + ".",
                            "The file changed since its row groups were counted; start again.");
                }
                append(r.readRowGroup(group), wanted, createdBy, cols);
            } else {
                for (PageReadStore pages; (pages = r.readNextRowGroup()) != null; ) {
                    append(pages, wanted, createdBy, cols);
                }
            }
            return Table.create(file.baseName(), cols);
        } catch (IOException | RuntimeException e) {
            throw unreadable(file, e);
        }
    }

    static ParquetFileReader open(InputFile in) throws IOException {
        ParquetReadOptions opts = ParquetReadOptions.builder(new PlainParquetConfiguration())
                .withCodecFactory(new ParquetCodecs()).build();
        return ParquetFileReader.open(in, opts);
    }

    private static void append(PageReadStore pages, MessageType schema, String createdBy,
            List<Column<?>> cols) {
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(pages,
                new GroupRecordConverter(schema).getRootConverter(), schema, createdBy);
        long rows = pages.getRowCount();
        List<ColumnDescriptor> descs = schema.getColumns();
        for (int c = 0; c < descs.size(); c++) {
            ColumnDescriptor d = descs.get(c);
            ColumnReader in = store.getColumnReader(d);
            Column<?> out = cols.get(c);
            int full = d.getMaxDefinitionLevel();
            for (long i = 0; i < rows; i++) {
                if (in.getCurrentDefinitionLevel() < full) {
                    out.appendMissing();
                } else {
                    appendValue(in, out, d.getPrimitiveType());
                }
                in.consume();
            }
        }
    }

    private static void appendValue(ColumnReader in, Column<?> out, PrimitiveType type) {
        if (out instanceof DoubleColumn c && decimalScale(type) >= 0) {
            BigInteger unscaled = switch (type.getPrimitiveTypeName()) {
                case INT32 -> BigInteger.valueOf(in.getInteger());
                case INT64 -> BigInteger.valueOf(in.getLong());
                default -> new BigInteger(in.getBinary().getBytes());
            };
            c.append(new BigDecimal(unscaled, decimalScale(type)).doubleValue());
        } else if (out instanceof DoubleColumn c) {
            c.append(in.getDouble());
        } else if (out instanceof FloatColumn c) {
            c.append(in.getFloat());
        } else if (out instanceof IntColumn c) {
            c.append(in.getInteger());
        } else if (out instanceof LongColumn c) {
            c.append(in.getLong());
        } else if (out instanceof BooleanColumn c) {
            c.append(in.getBoolean());
        } else {
            ((StringColumn) out).append(in.getBinary().toStringUsingUTF8());
        }
    }

    /** The scale of a decimal column (pandas' {@code Decimal} objects), or -1. */
    private static int decimalScale(PrimitiveType t) {
        return t.getLogicalTypeAnnotation()
                instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation d ? d.getScale() : -1;
    }

    private static Column<?> newColumn(String path, PrimitiveType t) {
        String name = t.getName();
        if (decimalScale(t) >= 0) {
            return DoubleColumn.create(name); // as Arrow decimals read
        }
        return switch (t.getPrimitiveTypeName()) {
            case DOUBLE -> DoubleColumn.create(name);
            case FLOAT -> FloatColumn.create(name);
            case INT32 -> IntColumn.create(name);
            case INT64 -> LongColumn.create(name);
            case BOOLEAN -> BooleanColumn.create(name);
            case BINARY, FIXED_LEN_BYTE_ARRAY -> StringColumn.create(name);
            default -> throw new DmlException("The Parquet column '" + name + "' of " + path
                    + " holds " + t.getPrimitiveTypeName() + " values, which dml cannot read.",
                    "Cast it to a number or a string before writing the file.");
        };
    }

    private static Type requireFlat(String path, Type t) {
        if (!t.isPrimitive() || t.isRepetition(Type.Repetition.REPEATED)) {
            throw new DmlException("The Parquet column '" + t.getName() + "' of " + path
                    + " is nested (a list, map or struct); dml reads flat tables.",
                    "Flatten it into one column per value before writing the file.");
        }
        return t;
    }

    private static DmlException unreadable(StoredFile path, Exception e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof DmlException d) {
                return d; // says what is wrong better than "not a Parquet file" would
            }
        }
        return new DmlException("Could not read Parquet file " + path + ": " + e.getMessage(),
                "Check that it is a Parquet file (pyarrow.parquet.write_table or"
                        + " pandas.DataFrame.to_parquet write one).", e);
    }
}

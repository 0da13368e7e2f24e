package dev.dml.ray.data;

import dev.dml.DmlException;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DateMilliVector;
import org.apache.arrow.vector.Decimal256Vector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.DurationVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.FloatingPointVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.LargeVarBinaryVector;
import org.apache.arrow.vector.LargeVarCharVector;
import org.apache.arrow.vector.NullVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.TimeMilliVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeSecVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UInt1Vector;
import org.apache.arrow.vector.UInt2Vector;
import org.apache.arrow.vector.UInt8Vector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.ViewVarBinaryVector;
import org.apache.arrow.vector.ViewVarCharVector;
import org.apache.arrow.vector.dictionary.Dictionary;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.types.pojo.DictionaryEncoding;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.columns.Column;

/**
 * One flat Arrow column as a Tablesaw column, for every type pandas and pyarrow write for flat
 * tables: floats become doubles; integers (signed or not) ints or longs; booleans booleans;
 * strings and binaries (plain, large or view) strings; timestamps, dates, times and durations
 * the numbers they store (in the column's own unit, as {@code df[c].astype("int64")} gives);
 * decimals doubles; a column of nulls only missing doubles; dictionary-encoded columns (pandas
 * categoricals) their decoded values. Lists, structs and maps are refused, naming the column.
 */
final class ArrowColumns {

    private ArrowColumns() {}

    /** The empty column {@code v} fills, looking through a dictionary to its values. */
    static Column<?> empty(FieldVector v, DictionaryProvider dictionaries, String file) {
        FieldVector values = values(v, dictionaries, file);
        String n = v.getName();
        if (values instanceof FloatingPointVector || values instanceof DecimalVector
                || values instanceof Decimal256Vector || values instanceof NullVector) {
            return DoubleColumn.create(n);
        }
        if (values instanceof IntVector || values instanceof SmallIntVector
                || values instanceof TinyIntVector || values instanceof UInt1Vector
                || values instanceof UInt2Vector || values instanceof DateDayVector
                || values instanceof TimeSecVector || values instanceof TimeMilliVector) {
            return IntColumn.create(n);
        }
        if (values instanceof BaseIntVector || values instanceof TimeStampVector
                || values instanceof DateMilliVector || values instanceof DurationVector
                || values instanceof TimeMicroVector || values instanceof TimeNanoVector) {
            return LongColumn.create(n);
        }
        if (values instanceof BitVector) {
            return BooleanColumn.create(n);
        }
        if (isText(values) || isBinary(values)) {
            return StringColumn.create(n);
        }
        throw new DmlException("The Arrow column '" + DmlException.literal(n) + "' of "
                + DmlException.literal(file) + " has type " + v.getField().getType()
                + ", which dml cannot read (it reads flat columns of numbers, booleans, text,"
                + " times and categories).", "Flatten it into one column per value, or cast it"
                + " to numbers or text, before writing the file.");
    }

    /** Appends rows {@code [0, rows)} of {@code v} to {@code c}, made by {@link #empty}. */
    static void append(FieldVector v, int rows, Column<?> c, DictionaryProvider dictionaries,
            String file) {
        DictionaryEncoding enc = v.getField().getDictionary();
        FieldVector values = values(v, dictionaries, file);
        for (int r = 0; r < rows; r++) {
            if (v.isNull(r)) {
                c.appendMissing();
            } else if (enc != null) {
                appendValue(values, Math.toIntExact(((BaseIntVector) v).getValueAsLong(r)), c);
            } else {
                appendValue(v, r, c);
            }
        }
    }

    private static void appendValue(FieldVector v, int r, Column<?> c) {
        if (v.isNull(r)) {
            c.appendMissing();
        } else if (c instanceof DoubleColumn d) {
            d.append(v instanceof FloatingPointVector f ? f.getValueAsDouble(r)
                    : v instanceof NullVector ? Double.NaN
                    : ((Number) v.getObject(r)).doubleValue());
        } else if (c instanceof IntColumn i) {
            i.append(Math.toIntExact(longValue(v, r)));
        } else if (c instanceof LongColumn l) {
            l.append(longValue(v, r));
        } else if (c instanceof BooleanColumn b) {
            b.append(((BitVector) v).get(r) != 0);
        } else if (isBinary(v)) {
            ((StringColumn) c).append(new String((byte[]) v.getObject(r),
                    StandardCharsets.UTF_8));
        } else {
            ((StringColumn) c).append(v.getObject(r).toString());
        }
    }

    /** The stored number of an integer, time or duration vector, without boxing a time. */
    private static long longValue(FieldVector v, int r) {
        if (v instanceof UInt8Vector u) {
            return u.get(r); // above 2^63 wraps, as numpy's astype("int64") does
        }
        if (v instanceof BaseIntVector i) {
            return i.getValueAsLong(r);
        }
        if (v instanceof TimeStampVector t) {
            return t.get(r);
        }
        if (v instanceof DurationVector d) {
            return DurationVector.get(d.getDataBuffer(), r);
        }
        if (v instanceof DateDayVector d) {
            return d.get(r);
        }
        if (v instanceof DateMilliVector d) {
            return d.get(r);
        }
        if (v instanceof TimeSecVector t) {
            return t.get(r);
        }
        if (v instanceof TimeMilliVector t) {
            return t.get(r);
        }
        if (v instanceof TimeMicroVector t) {
            return t.get(r);
        }
        return ((TimeNanoVector) v).get(r);
    }

    /** The vector holding {@code v}'s values: its dictionary's when it is encoded. */
    private static FieldVector values(FieldVector v, DictionaryProvider dictionaries,
            String file) {
        DictionaryEncoding enc = v.getField().getDictionary();
        if (enc == null) {
            return v;
        }
        Dictionary d = dictionaries == null ? null : dictionaries.lookup(enc.getId());
        if (d == null) {
            throw new DmlException("The Arrow column '" + DmlException.literal(v.getName())
                    + "' of " + DmlException.literal(file) + " is dictionary-encoded, but the"
                    + " file holds no dictionary " + enc.getId() + ".",
                    "Write it again with pyarrow (pyarrow.feather.write_feather or"
                            + " pyarrow.ipc.new_file).");
        }
        return d.getVector();
    }

    private static boolean isText(FieldVector v) {
        return v instanceof VarCharVector || v instanceof LargeVarCharVector
                || v instanceof ViewVarCharVector;
    }

    private static boolean isBinary(FieldVector v) {
        return v instanceof VarBinaryVector || v instanceof LargeVarBinaryVector
                || v instanceof ViewVarBinaryVector || v instanceof FixedSizeBinaryVector;
    }
}

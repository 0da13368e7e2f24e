package dev.dml.ray.data;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowReader;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.LongColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/** Converts the batches of an Arrow reader into one Tablesaw table. */
final class ArrowTables {

    private ArrowTables() {}

    /** Reads every batch of {@code reader} into a table named {@code name}. */
    static Table toTable(ArrowReader reader, String name) throws java.io.IOException {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        Map<String, Column<?>> cols = emptyColumns(root);
        while (reader.loadNextBatch()) {
            appendBatch(root, cols);
        }
        return Table.create(name, new ArrayList<>(cols.values()));
    }

    /** The one batch {@code root} holds now, as a table named {@code name}. */
    static Table toTable(VectorSchemaRoot root, String name) {
        Map<String, Column<?>> cols = emptyColumns(root);
        appendBatch(root, cols);
        return Table.create(name, new ArrayList<>(cols.values()));
    }

    private static Map<String, Column<?>> emptyColumns(VectorSchemaRoot root) {
        Map<String, Column<?>> cols = new LinkedHashMap<>();
        for (FieldVector v : root.getFieldVectors()) {
            for (Column<?> c : emptyColumns(v)) {
                cols.put(c.name(), c);
            }
        }
        return cols;
    }

    private static void appendBatch(VectorSchemaRoot root, Map<String, Column<?>> cols) {
        int rows = root.getRowCount();
        for (FieldVector v : root.getFieldVectors()) {
            append(v, rows, cols);
        }
    }

    private static List<Column<?>> emptyColumns(FieldVector v) {
        String n = v.getName();
        if (v instanceof FixedSizeListVector) {
            List<Column<?>> out = new ArrayList<>();
            for (String f : featureNames((FixedSizeListVector) v)) {
                out.add(DoubleColumn.create(f));
            }
            return out;
        }
        if (v instanceof Float4Vector || v instanceof Float8Vector) {
            return List.of(DoubleColumn.create(n));
        }
        if (v instanceof IntVector || v instanceof SmallIntVector || v instanceof TinyIntVector) {
            return List.of(IntColumn.create(n));
        }
        if (v instanceof BigIntVector) {
            return List.of(LongColumn.create(n));
        }
        if (v instanceof BitVector) {
            return List.of(BooleanColumn.create(n));
        }
        if (v instanceof VarCharVector) {
            return List.of(StringColumn.create(n));
        }
        throw new DmlException(
                "Arrow column '" + n + "' has type " + v.getMinorType()
                        + ", which dml cannot read.",
                "Cast it to a number or string column before writing the file.");
    }

    private static List<String> featureNames(FixedSizeListVector v) {
        String names = v.getField().getMetadata().get(ShardFormat.FEATURE_NAMES);
        int size = v.getListSize();
        List<String> out = new ArrayList<>(size);
        if (names != null && !names.isEmpty()) {
            for (String s : names.split("\n")) {
                out.add(s);
            }
        }
        if (out.size() != size) {
            out.clear();
            for (int i = 0; i < size; i++) {
                out.add(v.getName() + "_" + i);
            }
        }
        return out;
    }

    private static void append(FieldVector v, int rows, Map<String, Column<?>> cols) {
        if (v instanceof FixedSizeListVector) {
            FixedSizeListVector fsl = (FixedSizeListVector) v;
            int size = fsl.getListSize();
            List<String> names = featureNames(fsl);
            FieldVector child = fsl.getDataVector();
            for (int j = 0; j < size; j++) {
                DoubleColumn c = (DoubleColumn) cols.get(names.get(j));
                for (int r = 0; r < rows; r++) {
                    int i = r * size + j;
                    if (fsl.isNull(r) || child.isNull(i)) {
                        c.appendMissing();
                    } else {
                        c.append(((Number) child.getObject(i)).doubleValue());
                    }
                }
            }
            return;
        }
        Column<?> c = cols.get(v.getName());
        for (int r = 0; r < rows; r++) {
            if (v.isNull(r)) {
                c.appendMissing();
            } else if (c instanceof DoubleColumn) {
                double d = v instanceof Float4Vector
                        ? ((Float4Vector) v).get(r) : ((Float8Vector) v).get(r);
                ((DoubleColumn) c).append(d);
            } else if (c instanceof IntColumn) {
                ((IntColumn) c).append(((Number) v.getObject(r)).intValue());
            } else if (c instanceof LongColumn) {
                ((LongColumn) c).append(((BigIntVector) v).get(r));
            } else if (c instanceof BooleanColumn) {
                ((BooleanColumn) c).append(((BitVector) v).get(r) != 0);
            } else {
                ((StringColumn) c).append(v.getObject(r).toString());
            }
        }
    }
}

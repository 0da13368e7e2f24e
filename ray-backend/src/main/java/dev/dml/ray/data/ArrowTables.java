package dev.dml.ray.data;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.dictionary.DictionaryProvider;
import org.apache.arrow.vector.ipc.ArrowReader;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Converts the batches of an Arrow reader into one Tablesaw table: each flat column as {@link
 * ArrowColumns} reads it, a shard's FixedSizeList feature column as one column per feature. The
 * index columns pandas stores ({@link PandasIndex}) are left out.
 */
final class ArrowTables {

    private ArrowTables() {}

    /** Reads every batch of {@code reader} into a table named {@code name}. */
    static Table toTable(ArrowReader reader, String name) throws java.io.IOException {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        Map<String, Column<?>> cols = emptyColumns(root, reader, name);
        while (reader.loadNextBatch()) {
            appendBatch(root, cols, reader, name);
        }
        return Table.create(name, new ArrayList<>(cols.values()));
    }

    /**
     * The one batch {@code root} holds now, as a table named {@code name}.
     *
     * @param dictionaries the reader's dictionaries, for dictionary-encoded columns
     */
    static Table toTable(VectorSchemaRoot root, DictionaryProvider dictionaries, String name) {
        Map<String, Column<?>> cols = emptyColumns(root, dictionaries, name);
        appendBatch(root, cols, dictionaries, name);
        return Table.create(name, new ArrayList<>(cols.values()));
    }

    private static Map<String, Column<?>> emptyColumns(VectorSchemaRoot root,
            DictionaryProvider dictionaries, String name) {
        Map<String, Column<?>> cols = new LinkedHashMap<>();
        Set<String> index = PandasIndex.columns(root.getSchema().getCustomMetadata());
        for (FieldVector v : root.getFieldVectors()) {
            if (index.contains(v.getName())) {
                continue;
            }
            if (v instanceof FixedSizeListVector fsl) {
                for (String f : featureNames(fsl)) {
                    cols.put(f, DoubleColumn.create(f));
                }
            } else {
                cols.put(v.getName(), ArrowColumns.empty(v, dictionaries, name));
            }
        }
        return cols;
    }

    private static void appendBatch(VectorSchemaRoot root, Map<String, Column<?>> cols,
            DictionaryProvider dictionaries, String name) {
        int rows = root.getRowCount();
        for (FieldVector v : root.getFieldVectors()) {
            if (v instanceof FixedSizeListVector fsl) {
                appendFeatures(fsl, rows, cols);
            } else if (cols.containsKey(v.getName())) {
                ArrowColumns.append(v, rows, cols.get(v.getName()), dictionaries, name);
            }
        }
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

    private static void appendFeatures(FixedSizeListVector fsl, int rows,
            Map<String, Column<?>> cols) {
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
    }
}

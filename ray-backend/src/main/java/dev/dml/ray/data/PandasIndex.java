package dev.dml.ray.data;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The index columns pandas stores beside a frame's columns. {@code DataFrame.to_parquet()} and
 * {@code to_feather()} of a frame whose index is not a plain range (after {@code sample},
 * a split or a filter) write the index as a column, {@code __index_level_0__} or the index's
 * name, and list it in the file's {@code pandas} metadata under {@code index_columns}. pandas
 * and pyarrow read it back as the index, not as data; so does dml, which drops it.
 */
final class PandasIndex {

    /** The key pandas writes its metadata under, in Parquet and Arrow IPC alike. */
    static final String KEY = "pandas";

    private PandasIndex() {}

    /**
     * Returns the stored index columns a file's key-value metadata names.
     *
     * @param metadata the file's (Parquet footer) or schema's (Arrow) key-value metadata
     * @return their names; empty without pandas metadata or with a range index (stored as
     *     numbers in the metadata, not as a column)
     */
    static Set<String> columns(Map<String, String> metadata) {
        String json = metadata == null ? null : metadata.get(KEY);
        Set<String> out = new LinkedHashSet<>();
        if (json == null) {
            return out;
        }
        try {
            JsonElement index = JsonParser.parseString(json).getAsJsonObject()
                    .get("index_columns");
            if (index != null && index.isJsonArray()) {
                for (JsonElement e : index.getAsJsonArray()) {
                    if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isString()) {
                        out.add(e.getAsString());
                    }
                }
            }
        } catch (RuntimeException e) {
            return Set.of(); // metadata that is not pandas': every column is data
        }
        return out;
    }
}

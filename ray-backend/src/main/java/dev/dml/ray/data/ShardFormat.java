package dev.dml.ray.data;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * The Arrow layout of a shard, shared by the Java encoder and decoder and by other languages.
 *
 * <ul>
 *   <li>{@value #FEATURES}: {@code FixedSizeList<float32>[F]}, not null. Its child buffer is the
 *       row-major {@code [rows, F]} matrix, so a decoder copies it in one piece. The field's
 *       metadata key {@value #FEATURE_NAMES} holds the feature names joined by newlines.
 *   <li>{@value #LABEL} (optional): {@code int32} class indices or {@code float32} targets.
 *   <li>Schema metadata: {@value #FORMAT_VERSION} = {@code "1"}, {@value #LABEL_KIND} ({@code
 *       CLASSES} or {@code REGRESSION}), {@value #CLASS_COUNT} (for classes).
 * </ul>
 *
 * <p>dml writes one record batch per shard, without nulls, so every validity buffer is empty (as
 * the format allows) and the body is just the feature matrix followed by the labels, each 8-byte
 * aligned. Decoders also accept several batches, a {@code float64} feature child and {@code
 * int64}/{@code float64} labels (pyarrow's defaults).
 */
public final class ShardFormat {

    /** Name of the feature matrix column. */
    public static final String FEATURES = "features";
    /** Name of the label column. */
    public static final String LABEL = "label";
    /** Field metadata key on {@link #FEATURES}: feature names joined by {@code '\n'}. */
    public static final String FEATURE_NAMES = "dml.feature_names";
    /** Schema metadata key: the format version, {@code "1"}. */
    public static final String FORMAT_VERSION = "dml.format";
    /** Schema metadata key: the {@link LabelKind} name. */
    public static final String LABEL_KIND = "dml.label_kind";
    /** Schema metadata key: the number of classes for a {@link LabelKind#CLASSES} label. */
    public static final String CLASS_COUNT = "dml.classes";

    private ShardFormat() {}

    /**
     * Builds the schema of a shard.
     *
     * @param featureNames the feature names, in column order
     * @param kind the label kind, or {@code null} for a features-only shard
     * @param classes the number of classes (ignored unless {@code kind} is CLASSES)
     * @return the Arrow schema
     */
    public static Schema schema(List<String> featureNames, LabelKind kind, int classes) {
        ArrowType float32 = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
        Field item = new Field("item", FieldType.notNullable(float32), null);
        Map<String, String> featureMeta = Map.of(FEATURE_NAMES, String.join("\n", featureNames));
        Field features =
                new Field(
                        FEATURES,
                        new FieldType(
                                false,
                                new ArrowType.FixedSizeList(featureNames.size()),
                                null,
                                featureMeta),
                        List.of(item));
        Map<String, String> meta = new HashMap<>();
        meta.put(FORMAT_VERSION, "1");
        if (kind == null) {
            return new Schema(List.of(features), meta);
        }
        meta.put(LABEL_KIND, kind.name());
        ArrowType labelType;
        if (kind == LabelKind.CLASSES) {
            meta.put(CLASS_COUNT, Integer.toString(classes));
            labelType = new ArrowType.Int(32, true);
        } else {
            labelType = new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
        }
        Field label = new Field(LABEL, FieldType.notNullable(labelType), null);
        return new Schema(Arrays.asList(features, label), meta);
    }
}

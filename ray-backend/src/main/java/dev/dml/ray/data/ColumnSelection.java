package dev.dml.ray.data;

import dev.dml.DmlException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Which columns of a table are the features and which one is the label. Numeric and
 * boolean features go in as they are; text features are one-hot encoded with the {@link
 * FeatureVocabulary} learnt on the training table, which the selection then carries.
 *
 * <p>Immutable and {@link Serializable} (a plain class, not a record, so that Ray's serializer
 * accepts it). Build one with {@link #builder()}:
 *
 * <pre>{@code
 * ColumnSelection sel = ColumnSelection.builder()
 *         .addFeatureRange("v", 1, 30)
 *         .addFeature("amount")
 *         .setLabel("is_fraud", LabelKind.CLASSES)
 *         .build();
 * }</pre>
 *
 * <p>A selection without a label ({@link #featuresOnly()}) describes inputs for prediction.
 */
public final class ColumnSelection implements Serializable {

    private static final long serialVersionUID = 3L;

    private final List<String> features;
    private final String label;
    private final LabelKind labelKind;
    /** The class names of a text label, class i is element i; empty for numbers. */
    private final List<String> classNames;
    /** The categories of the text features, learnt on the training table. */
    private final FeatureVocabulary vocabulary;

    private ColumnSelection(List<String> features, String label, LabelKind labelKind,
            List<String> classNames, FeatureVocabulary vocabulary) {
        this.features = Collections.unmodifiableList(new ArrayList<>(features));
        this.label = label;
        this.labelKind = labelKind;
        this.classNames = Collections.unmodifiableList(new ArrayList<>(classNames));
        this.vocabulary = vocabulary;
    }

    /**
     * Starts a new selection.
     *
     * @return an empty builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Selects every numeric or boolean column of {@code table} except {@code label} as features.
     *
     * @param table the table to look at
     * @param label the label column
     * @param kind what the label holds
     * @return the selection
     */
    public static ColumnSelection allNumericExcept(Table table, String label, LabelKind kind) {
        return allExcept(table, label, kind, false);
    }

    /**
     * Selects every numeric, boolean or text column of {@code table} except {@code label} as
     * features; text columns are one-hot encoded ({@link FeatureVocabulary}).
     *
     * @param table the table to look at
     * @param label the label column
     * @param kind what the label holds
     * @return the selection
     */
    public static ColumnSelection allExcept(Table table, String label, LabelKind kind) {
        return allExcept(table, label, kind, true);
    }

    private static ColumnSelection allExcept(Table table, String label, LabelKind kind,
            boolean text) {
        Builder b = builder().setLabel(label, kind);
        for (Column<?> c : table.columns()) {
            if (!c.name().equals(label)
                    && (Columns.isNumeric(c) || text && FeatureVocabulary.isText(c))) {
                b.addFeature(c.name());
            }
        }
        if (table.columnCount() == 0) {
            throw new DmlException("The table '" + DmlException.literal(table.name()) + "' has no"
                    + " columns.", "Give a table with the label " + DmlException.literal(label)
                    + " and the columns to train on.");
        }
        if (b.features.isEmpty()) {
            String what = text ? "numeric, boolean or text" : "numeric or boolean";
            throw new DmlException("The table '" + DmlException.literal(table.name()) + "' has no"
                    + " " + what + " column besides the label " + DmlException.literal(label)
                    + "; its columns are " + DmlException.literal(table.columnNames()) + ".",
                    (text ? "Add numeric or text columns" : "Add numeric columns, or select text"
                            + " columns too") + "; {features} picks the columns to train on.");
        }
        return b.build();
    }

    /**
     * Returns the feature column names, in the order they are encoded.
     *
     * @return an unmodifiable list
     */
    public List<String> features() {
        return features;
    }

    /**
     * Returns the number of feature columns; {@link #inputCount()} is the model's width.
     *
     * @return the feature count
     */
    public int featureCount() {
        return features.size();
    }

    /**
     * Returns the label column name.
     *
     * @return the name, or {@code null} for a features-only selection
     */
    public String label() {
        return label;
    }

    /**
     * Returns what the label holds.
     *
     * @return the kind, or {@code null} for a features-only selection
     */
    public LabelKind labelKind() {
        return labelKind;
    }

    /**
     * Tells whether this selection has a label column.
     *
     * @return {@code true} when a label is selected
     */
    public boolean hasLabel() {
        return label != null;
    }

    /**
     * Returns the class names of a label that holds text, which {@link LabelClasses} learnt on
     * the training table: class {@code i} is element {@code i}.
     *
     * @return the names, empty for a numeric label
     */
    public List<String> classNames() {
        return classNames;
    }

    /**
     * Returns the same selection with the class names of its text label.
     *
     * @param names the names, as {@link LabelClasses#learn} gives them
     * @return a new selection
     */
    public ColumnSelection withClassNames(List<String> names) {
        if (labelKind != LabelKind.CLASSES) {
            throw new DmlException("Only a class label has class names; '" + label + "' is "
                    + labelKind + ".", "Set the label with LabelKind.CLASSES.");
        }
        return new ColumnSelection(features, label, labelKind, names, vocabulary);
    }

    /**
     * Returns the categories of the text features, which {@link FeatureVocabulary#learn} learnt
     * on the training table.
     *
     * @return the vocabulary, empty when no feature holds text or none was learnt yet
     */
    public FeatureVocabulary vocabulary() {
        return vocabulary;
    }

    /**
     * Returns the same selection with the categories of its text features.
     *
     * @param vocabulary the categories, as {@link FeatureVocabulary#learn} gives them
     * @return a new selection
     */
    public ColumnSelection withVocabulary(FeatureVocabulary vocabulary) {
        return new ColumnSelection(features, label, labelKind, classNames,
                Objects.requireNonNull(vocabulary, "vocabulary"));
    }

    /**
     * Returns the names of the model's inputs: the numeric features, and one per category of
     * each text feature ({@code island=Biscoe}, ..., {@code island=(other)}).
     *
     * @return the input names, in the order the model reads them
     */
    public List<String> inputs() {
        return vocabulary.inputs(features);
    }

    /**
     * Returns the number of the model's inputs, {@code inputs().size()}.
     *
     * @return the input count
     */
    public int inputCount() {
        return vocabulary.isEmpty() ? features.size() : inputs().size();
    }

    /** The selection of an encoded table ({@link VocabularyEncoding#encode}): its inputs. */
    ColumnSelection encoded() {
        return vocabulary.isEmpty() ? this : new ColumnSelection(inputs(), label, labelKind,
                classNames, FeatureVocabulary.none());
    }

    /**
     * Returns the same features without the label, for prediction.
     *
     * @return a features-only selection
     */
    public ColumnSelection featuresOnly() {
        return new ColumnSelection(features, null, null, List.of(), vocabulary);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ColumnSelection)) {
            return false;
        }
        ColumnSelection s = (ColumnSelection) o;
        return features.equals(s.features)
                && Objects.equals(label, s.label)
                && labelKind == s.labelKind
                && classNames.equals(s.classNames)
                && vocabulary.equals(s.vocabulary);
    }

    @Override
    public int hashCode() {
        return Objects.hash(features, label, labelKind, classNames, vocabulary);
    }

    @Override
    public String toString() {
        return "ColumnSelection{features=" + features + ", label=" + label
                + " (" + labelKind + (classNames.isEmpty() ? "" : " " + classNames) + ")"
                + (vocabulary.isEmpty() ? "" : ", " + vocabulary) + "}";
    }

    /** Builds a {@link ColumnSelection}; each setter rejects a bad value at once. */
    public static final class Builder {

        private final Set<String> features = new LinkedHashSet<>();
        private String label;
        private LabelKind labelKind;

        private Builder() {}

        /**
         * Adds one feature column.
         *
         * @param name the column name
         * @return this builder
         */
        public Builder addFeature(String name) {
            if (name == null || name.isBlank()) {
                throw new DmlException(
                        "A feature column name is empty.",
                        "Pass the column's name as in the table.");
            }
            if (!features.add(name)) {
                throw new DmlException(
                        "Feature column '" + name + "' was added twice.",
                        "Add each feature column once.");
            }
            return this;
        }

        /**
         * Adds several feature columns, in order.
         *
         * @param names the column names
         * @return this builder
         */
        public Builder addFeatures(String... names) {
            for (String n : names) {
                addFeature(n);
            }
            return this;
        }

        /**
         * Adds several feature columns, in order.
         *
         * @param names the column names
         * @return this builder
         */
        public Builder addFeatures(List<String> names) {
            names.forEach(this::addFeature);
            return this;
        }

        /**
         * Adds {@code prefix + from} .. {@code prefix + to} (inclusive), e.g. {@code v1..v30}.
         *
         * @param prefix the common prefix
         * @param from the first index
         * @param to the last index, inclusive
         * @return this builder
         */
        public Builder addFeatureRange(String prefix, int from, int to) {
            if (to < from) {
                throw new DmlException(
                        "Feature range " + prefix + from + ".." + prefix + to + " is empty.",
                        "Pass from <= to.");
            }
            for (int i = from; i <= to; i++) {
                addFeature(prefix + i);
            }
            return this;
        }

        /**
         * Sets the label column (required unless the selection is for prediction only).
         *
         * @param name the column name
         * @param kind what the label holds
         * @return this builder
         */
        public Builder setLabel(String name, LabelKind kind) {
            if (name == null || name.isBlank() || kind == null) {
                throw new DmlException(
                        "The label column name or kind is missing.",
                        "Call setLabel(\"column\", LabelKind.CLASSES or LabelKind.REGRESSION).");
            }
            this.label = name;
            this.labelKind = kind;
            return this;
        }

        /**
         * Builds the selection.
         *
         * @return the immutable selection
         */
        public ColumnSelection build() {
            if (features.isEmpty()) {
                throw new DmlException(
                        "The column selection has no feature columns.",
                        "Call addFeature(\"name\") or addFeatures(...) before build().");
            }
            if (label != null && features.contains(label)) {
                throw new DmlException(
                        "Column '" + label + "' is both the label and a feature.",
                        "Remove it from the features: a model must not see its own label.");
            }
            return new ColumnSelection(new ArrayList<>(features), label, labelKind, List.of(),
                    FeatureVocabulary.none());
        }
    }
}

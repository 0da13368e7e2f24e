package dev.dml.ray.data;

import dev.dml.DmlException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Which columns of a table are the numeric features and which one is the label.
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

    private static final long serialVersionUID = 2L;

    private final List<String> features;
    private final String label;
    private final LabelKind labelKind;
    /** The class names of a text label, class i is element i; empty for numbers. */
    private final List<String> classNames;

    private ColumnSelection(List<String> features, String label, LabelKind labelKind,
            List<String> classNames) {
        this.features = Collections.unmodifiableList(new ArrayList<>(features));
        this.label = label;
        this.labelKind = labelKind;
        this.classNames = Collections.unmodifiableList(new ArrayList<>(classNames));
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
        Builder b = builder().setLabel(label, kind);
        if (table.columnCount() > 0 && table.columns().stream().noneMatch(c -> !c.name()
                .equals(label) && (c instanceof tech.tablesaw.api.NumericColumn
                        || c.type() == ColumnType.BOOLEAN))) {
            throw new DmlException("The table '" + DmlException.literal(table.name()) + "' has no"
                    + " numeric or boolean column besides the label " + DmlException.literal(label)
                    + "; its columns are " + DmlException.literal(table.columnNames()) + ".",
                    "Add numeric columns, or turn text columns into numbers; {features} picks the"
                            + " columns to train on.");
        }
        for (Column<?> c : table.columns()) {
            ColumnType t = c.type();
            boolean numeric =
                    c instanceof tech.tablesaw.api.NumericColumn || t == ColumnType.BOOLEAN;
            if (numeric && !c.name().equals(label)) {
                b.addFeature(c.name());
            }
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
     * Returns the number of feature columns.
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
        return new ColumnSelection(features, label, labelKind, names);
    }

    /**
     * Returns the same features without the label, for prediction.
     *
     * @return a features-only selection
     */
    public ColumnSelection featuresOnly() {
        return new ColumnSelection(features, null, null, List.of());
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
                && classNames.equals(s.classNames);
    }

    @Override
    public int hashCode() {
        return Objects.hash(features, label, labelKind, classNames);
    }

    @Override
    public String toString() {
        return "ColumnSelection{features=" + features + ", label=" + label
                + " (" + labelKind + (classNames.isEmpty() ? "" : " " + classNames) + ")}";
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
            return new ColumnSelection(new ArrayList<>(features), label, labelKind, List.of());
        }
    }
}

package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

class TableValidatorTest {

    private static Table table() {
        return Table.create("tx",
                DoubleColumn.create("amount", 1.5, 2.5, 3.5),
                IntColumn.create("age", 30, 40, 50),
                BooleanColumn.create("foreign", true, false, true),
                StringColumn.create("city", "a", "b", "c"),
                IntColumn.create("is_fraud", 0, 1, 0),
                DoubleColumn.create("score", 0.1, 0.2, 0.3));
    }

    private static ColumnSelection sel(String label, String... features) {
        return ColumnSelection.builder().addFeatures(features)
                .setLabel(label, LabelKind.CLASSES).build();
    }

    @Test
    void validTableReturnsClassCount() {
        assertEquals(2, TableValidator.validate(table(), sel("is_fraud", "amount", "age",
                "foreign")));
    }

    @Test
    void missingValueNamesColumnAndRow() {
        Table t = table();
        t.doubleColumn("amount").setMissing(2);
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(t, sel("is_fraud", "age", "amount")));
        assertEquals("Feature column 'amount' has a missing value (NaN) at row 2.", e.what());
        assertTrue(e.hint().contains("dropRowsWithMissingValues"), e.hint());
    }

    @Test
    void aFiniteValueOutsideFloatRangeIsRejectedLikeInfinity() {
        Table t = table();
        t.doubleColumn("amount").set(2, 1e39); // finite as a double, infinite as a float
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(t, sel("is_fraud", "age", "amount")));
        assertEquals("Feature column 'amount' has a value outside float range (1.0E39) at row 2.",
                e.what());
        assertTrue(e.hint().startsWith("Scale the column"), e.hint());
        t.doubleColumn("amount").set(2, Double.POSITIVE_INFINITY);
        assertEquals("Feature column 'amount' has an infinite value at row 2.", assertThrows(
                DmlException.class, () -> TableValidator.validate(t, sel("is_fraud", "amount")))
                .what());
        byte[] encoded = ArrowShards.encode(table(), sel("is_fraud", "amount"));
        assertTrue(encoded.length > 0, "a table in float range encodes");
        assertThrows(DmlException.class, () -> ArrowShards.encode(t, sel("is_fraud", "amount")));
    }

    @Test
    void missingLabelValueIsReported() {
        Table t = table();
        t.intColumn("is_fraud").setMissing(1);
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(t, sel("is_fraud", "age")));
        assertEquals("Label column 'is_fraud' has a missing value (NaN) at row 1.", e.what());
    }

    @Test
    void aTextFeatureIsValidAndADateFeatureIsNamed() {
        assertEquals(2, TableValidator.validate(table(), sel("is_fraud", "amount", "city")));
        Table t = table().addColumns(tech.tablesaw.api.DateColumn.create("day", 3));
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(t, sel("is_fraud", "amount", "day")));
        assertEquals("Feature column 'day' holds LOCAL_DATE values, not numbers or text.",
                e.what());
        assertEquals("Convert it to numbers or text first, or remove it from the features.",
                e.hint());
    }

    @Test
    void emptyTableIsRejected() {
        Table t = table().emptyCopy();
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(t, sel("is_fraud", "amount")));
        assertEquals("The table 'tx' has no rows.", e.what());
    }

    @Test
    void missingLabelSuggestsClosestAndListsColumns() {
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(table(), sel("is_fruad", "amount")));
        assertEquals("Label column 'is_fruad' is not in the table 'tx'.", e.what());
        assertTrue(e.hint().startsWith("Did you mean 'is_fraud'?"), e.hint());
        assertTrue(e.hint().contains("amount, age, foreign, city, is_fraud, score"), e.hint());
    }

    @Test
    void missingFeatureListsColumns() {
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(table(), sel("is_fraud", "amount", "zzzzzzzzz")));
        assertEquals("Feature column 'zzzzzzzzz' is not in the table 'tx'.", e.what());
        assertTrue(e.hint().startsWith("Available columns: amount,"), e.hint());
    }

    @Test
    void fractionalClassLabelIsRejected() {
        ColumnSelection s = ColumnSelection.builder().addFeature("age")
                .setLabel("score", LabelKind.CLASSES).build();
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(table(), s));
        assertTrue(e.what().contains("value 0.1 at row 0"), e.what());
        assertTrue(e.hint().contains("LabelKind.REGRESSION"), e.hint());
    }

    @Test
    void regressionLabelAcceptsReals() {
        ColumnSelection s = ColumnSelection.builder().addFeature("age")
                .setLabel("score", LabelKind.REGRESSION).build();
        assertEquals(0, TableValidator.validate(table(), s));
    }

    @Test
    void builderRejectsBadSelections() {
        assertThrows(DmlException.class, () -> ColumnSelection.builder().build());
        assertThrows(DmlException.class,
                () -> ColumnSelection.builder().addFeature("a").addFeature("a"));
        DmlException e = assertThrows(DmlException.class, () -> ColumnSelection.builder()
                .addFeature("y").setLabel("y", LabelKind.CLASSES).build());
        assertEquals("Column 'y' is both the label and a feature.", e.what());
    }

    @Test
    void allNumericExceptSkipsStringsAndLabel() {
        ColumnSelection s = ColumnSelection.allNumericExcept(table(), "is_fraud",
                LabelKind.CLASSES);
        assertEquals(java.util.List.of("amount", "age", "foreign", "score"), s.features());
    }
}

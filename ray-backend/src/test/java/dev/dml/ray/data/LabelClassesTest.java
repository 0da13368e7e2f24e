package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.NativeMemoryTest;
import java.util.List;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/** Class names in a label column: learnt on the training table, sorted, checked elsewhere. */
class LabelClassesTest extends NativeMemoryTest {

    private static final Table IRIS = RealTables.iris();
    private static final ColumnSelection SEL = ColumnSelection.allNumericExcept(IRIS, "species",
            LabelKind.CLASSES);

    @Test
    void theNamesAreLearntSortedAndEncodedAsClassIndices() {
        assertTrue(LabelClasses.holdsNames(IRIS, "species"));
        assertEquals(List.of("setosa", "versicolor", "virginica"),
                LabelClasses.learn(IRIS, "species"));
        ColumnSelection named = SEL.withClassNames(LabelClasses.learn(IRIS, "species"));
        assertEquals(4, named.featureCount(), "the label is not a feature");
        assertEquals(3, TableValidator.validate(IRIS, named));
        try (ShardDecoder dec = new ShardDecoder(root, "iris/0");
                ShardArrays s = dec.openArrays(ArrowShards.encode(IRIS, named), manager)) {
            assertEquals(3, s.classCount());
            int[] y = s.labels().toIntArray();
            assertEquals(0, y[0]); // setosa
            assertEquals(1, y[50]); // versicolor
            assertEquals(2, y[149]); // virginica
        }
        Table someRows = IRIS.inRange(100, 150); // only virginica: still class 2 of 3
        assertEquals(3, TableValidator.validate(someRows, named));
        assertArrayEquals(new float[] {2f, 2f}, java.util.Arrays.copyOf(
                LabelClasses.values(someRows, named), 2));
    }

    @Test
    void aClassTheTrainingRowsLackIsOneClearLine() {
        ColumnSelection named = SEL.withClassNames(List.of("setosa", "versicolor"));
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(IRIS, named));
        assertEquals("Label column 'species' has class 'virginica' at row 100, which the"
                + " training rows do not have.", e.what());
        assertEquals("The model knows 'setosa', 'versicolor'; drop or relabel those rows.",
                e.hint());
    }

    @Test
    void textLabelsWithoutLearntNamesAreRefusedWithTheWayOut() {
        DmlException e = assertThrows(DmlException.class,
                () -> TableValidator.validate(IRIS, SEL));
        assertEquals("Label column 'species' holds STRING values, not numbers.", e.what());
        assertTrue(e.hint().contains("LabelClasses.learn(table, \"species\")"), e.hint());
        Table missing = IRIS.copy();
        missing.stringColumn("species").setMissing(7);
        DmlException m = assertThrows(DmlException.class,
                () -> LabelClasses.learn(missing, "species"));
        assertEquals("Label column 'species' has no value at row 7.", m.what());
    }
}

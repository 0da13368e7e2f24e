package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import dev.dml.DmlException;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** Text features one-hot encoded with the categories learnt on the training rows. */
class FeatureVocabularyTest {

    private static final ColumnSelection SEL = ColumnSelection.builder()
            .addFeatures("size", "colour").setLabel("y", LabelKind.CLASSES).build();

    private static Table train() {
        return Table.create("shop",
                DoubleColumn.create("size", 1, 2, 3, 4, 5, 6),
                StringColumn.create("colour", "red", "blue", "red", "green", "blue", "red"),
                IntColumn.create("y", 0, 1, 0, 1, 1, 0));
    }

    @Test
    void categoriesAreOrderedByFrequencyThenName() {
        FeatureVocabulary v = FeatureVocabulary.learn(train(), SEL);
        assertEquals(List.of("red", "blue", "green"), v.categories().get("colour"));
        ColumnSelection s = SEL.withVocabulary(v);
        assertEquals(List.of("size", "colour=red", "colour=blue", "colour=green",
                "colour=(other)"), s.inputs());
        assertEquals(5, s.inputCount());
        assertEquals(2, s.featureCount());
    }

    @Test
    void rareUnseenAndMissingValuesShareTheOtherInput() {
        FeatureVocabulary v = FeatureVocabulary.learn(train(), SEL, 2); // green is rare
        assertEquals(List.of("red", "blue"), v.categories().get("colour"));
        Table rows = Table.create("new", DoubleColumn.create("size", 1, 2, 3, 4),
                StringColumn.create("colour", "blue", "green", "purple", null));
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray x = TableArrays.openFeatures(rows, SEL.withVocabulary(v), m);
            assertArrayEquals(new float[] {
                1, 0, 1, 0,
                2, 0, 0, 1,
                3, 0, 0, 1,
                4, 0, 0, 1}, x.toFloatArray());
        }
    }

    @Test
    void oneHotInputsAreNotStandardised() {
        ColumnSelection s = SEL.withVocabulary(FeatureVocabulary.learn(train(), SEL));
        FeatureStats stats = FeatureStats.of(train(), s);
        assertArrayEquals(new float[] {3.5f, 0, 0, 0, 0}, stats.means());
        assertEquals(1f, stats.stds()[1]);
        assertEquals(1.7078f, stats.stds()[0], 1e-4);
    }

    @Test
    void aColumnWithMoreValuesThanEmbedAboveIsOneIndexInput() {
        FeatureVocabulary v = FeatureVocabulary.learn(train(), SEL, 32, 2, List.of());
        assertTrue(v.embeds("colour"), "3 values, more than 2");
        ColumnSelection s = SEL.withVocabulary(v);
        assertEquals(List.of("size", "colour=(index)"), s.inputs());
        assertArrayEquals(new int[] {1}, v.indexInputs(SEL.features()));
        Table rows = Table.create("new", DoubleColumn.create("size", 1, 2, 3, 4, 5),
                StringColumn.create("colour", "red", "blue", "green", "purple", null));
        try (NDManager m = NDManager.newBaseManager()) {
            NDArray x = TableArrays.openFeatures(rows, s, m);
            // red, blue, green by frequency are 1, 2, 3; unseen and missing take index 0
            assertArrayEquals(new float[] {1, 1, 2, 2, 3, 3, 4, 0, 5, 0}, x.toFloatArray());
        }
        FeatureStats stats = FeatureStats.of(train(), s);
        assertEquals(0f, stats.means()[1], "an index is not standardised");
        assertEquals(1f, stats.stds()[1]);
    }

    @Test
    void anIdColumnOf1001UsersIsEmbeddedByDefault() {
        Table t = Table.create("users", StringColumn.create("user",
                IntStream.range(0, 1001).mapToObj(i -> "u" + i).toArray(String[]::new)),
                IntColumn.create("y", new int[1001]));
        ColumnSelection s = ColumnSelection.builder().addFeature("user")
                .setLabel("y", LabelKind.CLASSES).build();
        FeatureVocabulary v = FeatureVocabulary.learn(t, s);
        assertTrue(v.embeds("user"));
        assertEquals(1001, v.categories().get("user").size());
    }

    @Test
    void integerIdsAreCategoriesWhenNamedToBeEmbedded() {
        Table t = Table.create("ratings", IntColumn.create("item", 7, 9, 7, 11),
                DoubleColumn.create("rating", 1, 2, 3, 4));
        ColumnSelection s = ColumnSelection.builder().addFeature("item")
                .setLabel("rating", LabelKind.REGRESSION).build();
        assertTrue(FeatureVocabulary.learn(t, s).isEmpty(), "numbers unless named");
        FeatureVocabulary v = FeatureVocabulary.learn(t, s, 32, 1000, List.of("item"));
        assertEquals(List.of("7", "11", "9"), v.categories().get("item"));
        Table rows = Table.create("new", IntColumn.create("item", 11, 5));
        try (NDManager m = NDManager.newBaseManager()) {
            assertArrayEquals(new float[] {2, 0}, TableArrays.openFeatures(rows,
                    s.featuresOnly().withVocabulary(v), m).toFloatArray());
        }
    }

    @Test
    void embedAboveBelowOneIsRefusedInOneLine() {
        DmlException e = assertThrows(DmlException.class,
                () -> FeatureVocabulary.learn(train(), SEL, 32, 0, List.of()));
        assertEquals("opt(TrainOptions.EMBED_ABOVE, ...) must be at least 1, got 0.", e.what());
    }

    @Test
    void aTextFeatureWithoutCategoriesIsRefusedInOneLine() {
        try (NDManager m = NDManager.newBaseManager()) {
            DmlException e = assertThrows(DmlException.class,
                    () -> TableArrays.openFeatures(train(), SEL, m));
            assertEquals("Feature column 'colour' holds text, but no categories were learnt"
                    + " for it.", e.what());
        }
    }

    @Test
    void theVocabularyCrossesRayAndTheSelectionKeepsIt() throws Exception {
        ColumnSelection s = SEL.withVocabulary(FeatureVocabulary.learn(train(), SEL));
        java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
        try (java.io.ObjectOutputStream o = new java.io.ObjectOutputStream(b)) {
            o.writeObject(s);
        }
        Object back = new java.io.ObjectInputStream(
                new java.io.ByteArrayInputStream(b.toByteArray())).readObject();
        assertEquals(s, back);
        assertEquals(s.vocabulary(), s.featuresOnly().vocabulary());
    }
}

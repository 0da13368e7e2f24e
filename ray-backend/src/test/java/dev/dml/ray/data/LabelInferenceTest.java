package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dml.options.ModelFamily;
import java.util.List;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;

/** A label's kind, told from its values as {@code %dml train --label} is built. */
class LabelInferenceTest {

    private final Table fraud = SyntheticFraud.generate(2_000, 7);

    @Test
    void labelsAreClassesUnlessFractional() {
        assertEquals(LabelKind.CLASSES, LabelInference.labelKind(fraud, "is_fraud"));
        Table prices = Table.create("p", DoubleColumn.create("price", 1.5, 2.25));
        assertEquals(LabelKind.REGRESSION, LabelInference.labelKind(prices, "price"));
    }

    @Test
    void mfScoresWholeNumberRatingsAsRatings() {
        Table stars = Table.create("s", IntColumn.create("user", 1, 2, 3),
                IntColumn.create("stars", 1, 3, 5));
        assertEquals(LabelKind.CLASSES, LabelInference.select(stars, "stars",
                List.of("user"), ModelFamily.MLP).labelKind());
        assertEquals(LabelKind.REGRESSION, LabelInference.select(stars, "stars",
                List.of("user"), ModelFamily.MF).labelKind());
    }
}

package dev.dml.ray.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.ray.data.SyntheticFraud;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** The data hash changes with any value, name or text, and only with them. */
class DataFingerprintTest {

    @Test
    void equalTablesHashEqualAndOneChangedValueDoesNot() {
        Table a = SyntheticFraud.generate(200, 5);
        String hash = DataFingerprint.of(a);
        assertTrue(hash.matches("[0-9a-f]{32}"), hash);
        assertEquals(hash, DataFingerprint.of(SyntheticFraud.generate(200, 5)));

        Table changed = SyntheticFraud.generate(200, 5);
        changed.doubleColumn(SyntheticFraud.AMOUNT).set(117,
                Math.nextUp(changed.doubleColumn(SyntheticFraud.AMOUNT).get(117)));
        assertNotEquals(hash, DataFingerprint.of(changed));

        Table renamed = SyntheticFraud.generate(200, 5);
        renamed.column(SyntheticFraud.AMOUNT).setName("amount_usd");
        assertNotEquals(hash, DataFingerprint.of(renamed));
    }

    @Test
    void textValuesAreDelimited() {
        Table ab = Table.create("t", StringColumn.create("s", "ab", "c"));
        Table a = Table.create("t", StringColumn.create("s", "a", "bc"));
        assertNotEquals(DataFingerprint.of(ab), DataFingerprint.of(a));
    }
}

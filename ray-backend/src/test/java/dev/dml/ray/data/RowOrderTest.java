package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The row order is a pure function of the seed, the epoch and the shard. */
class RowOrderTest {

    private static boolean isPermutation(int[] p, int n) {
        int[] s = p.clone();
        Arrays.sort(s);
        for (int i = 0; i < n; i++) {
            if (s[i] != i) {
                return false;
            }
        }
        return s.length == n;
    }

    @Test
    void anEpochsOrderIsTheSameForTheSameSeedAndNewEachEpoch() {
        int[] e0 = RowOrder.epoch(42, 0, 1, 1000);
        assertTrue(isPermutation(e0, 1000));
        assertArrayEquals(e0, RowOrder.epoch(42, 0, 1, 1000), "same inputs, same order");
        assertFalse(Arrays.equals(e0, RowOrder.epoch(42, 1, 1, 1000)), "a new order each epoch");
        assertFalse(Arrays.equals(e0, RowOrder.epoch(42, 0, 2, 1000)), "each shard its own");
        assertFalse(Arrays.equals(e0, RowOrder.epoch(7, 0, 1, 1000)), "the seed matters");
        int[] identity = RowOrder.split(1000, 1, false, null, 0).index();
        assertFalse(Arrays.equals(e0, identity), "shuffled");
    }

    @Test
    void withoutShuffleTheShardsAreTheContiguousRangesOfBefore() {
        RowOrder.Split s = RowOrder.split(10, 3, false, null, 42);
        assertArrayEquals(ArrowShards.rowBounds(10, 3), s.bounds());
        assertArrayEquals(new int[] {3, 4, 5}, s.rowsOf(1));
    }

    @Test
    void aShuffledSplitDealsEveryRowOnceInASeededOrder() {
        RowOrder.Split s = RowOrder.split(101, 4, true, null, 42);
        assertTrue(isPermutation(s.index(), 101));
        assertArrayEquals(ArrowShards.rowBounds(101, 4), s.bounds());
        assertArrayEquals(s.index(), RowOrder.split(101, 4, true, null, 42).index());
        assertFalse(Arrays.equals(s.index(), RowOrder.split(101, 4, true, null, 43).index()));
    }

    @Test
    void aStratifiedSplitGivesEveryShardTheTablesClassMix() {
        // a label-sorted table: 30 of class 0, then 60 of class 1, then 11 of class 2
        int[] classes = new int[101];
        Arrays.fill(classes, 30, 90, 1);
        Arrays.fill(classes, 90, 101, 2);
        for (boolean shuffle : new boolean[] {false, true}) {
            RowOrder.Split s = RowOrder.split(101, 4, shuffle, classes, 42);
            assertTrue(isPermutation(s.index(), 101));
            for (int shard = 0; shard < 4; shard++) {
                int[] count = new int[3];
                for (int r : s.rowsOf(shard)) {
                    count[classes[r]]++;
                }
                assertTrue(Math.abs(count[0] - 30 / 4.0) <= 1, "class 0 " + count[0]);
                assertTrue(Math.abs(count[1] - 60 / 4.0) <= 1, "class 1 " + count[1]);
                assertTrue(Math.abs(count[2] - 11 / 4.0) <= 1, "class 2 " + count[2]);
                int size = s.bounds()[shard + 1] - s.bounds()[shard];
                assertEquals(size, count[0] + count[1] + count[2]);
                assertTrue(size == 25 || size == 26, "size " + size);
            }
        }
        RowOrder.Split kept = RowOrder.split(101, 4, false, classes, 42);
        int[] rows = kept.rowsOf(0);
        int[] sorted = rows.clone();
        Arrays.sort(sorted);
        assertArrayEquals(sorted, rows, "without shuffle a shard keeps the table's order");
    }
}

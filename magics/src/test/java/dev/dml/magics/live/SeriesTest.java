package dev.dml.magics.live;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SeriesTest {

    @Test
    void shortSeriesAreDrawnWhole() {
        Series s = new Series();
        s.add(1, 3);
        s.add(2, Double.NaN);
        s.add(3, 4);
        double[][] p = s.points(400);
        assertArrayEquals(new double[] {1, 3}, p[0]);
        assertArrayEquals(new double[] {3, 4}, p[1]);
        assertEquals(4, s.lastY());
    }

    @Test
    void longSeriesKeepFirstLastAndEveryExtreme() {
        Series s = new Series();
        int n = 5_000;
        for (int i = 0; i < n; i++) {
            double y = Math.sin(i / 50.0);
            y = i == 1_234 ? 9 : i == 3_210 ? -9 : y;
            s.add(i, y);
        }
        double[][] p = s.points(400);
        assertTrue(p[0].length <= 400 && p[0].length > 300, "points: " + p[0].length);
        assertEquals(0, p[0][0]);
        assertEquals(n - 1, p[0][p[0].length - 1]);
        assertTrue(Arrays.stream(p[1]).anyMatch(y -> y == 9), "the spike stays");
        assertTrue(Arrays.stream(p[1]).anyMatch(y -> y == -9), "the dip stays");
        for (int i = 1; i < p[0].length; i++) {
            assertTrue(p[0][i] > p[0][i - 1], "x strictly increasing at " + i);
        }
    }

    @Test
    void eachBucketKeepsItsMinimumAndMaximum() {
        Series s = new Series();
        for (int i = 0; i < 1_000; i++) {
            s.add(i, i % 10);
        }
        double[][] p = s.points(10);
        // First and last, then 998 inner points in 4 buckets; each holds a full 0..9 cycle,
        // its min and max kept in x order.
        assertArrayEquals(new double[] {0, 9, 10, 250, 259, 500, 509, 749, 750, 999}, p[0]);
        assertArrayEquals(new double[] {0, 9, 0, 0, 9, 0, 9, 9, 0, 9}, p[1]);
    }

    /** Issue 26, memory over time: a job of a million steps holds no more than 20,000 points. */
    @Test
    void aSeriesOfAMillionPointsHoldsAtMostItsCapacityAndKeepsItsExtremes() {
        Series s = new Series();
        int n = 1_000_000;
        int peak = 0;
        for (int i = 0; i < n; i++) {
            s.add(i, i == 123_456 ? 9 : i == 876_543 ? -9 : Math.sin(i / 500.0));
            peak = Math.max(peak, s.size());
        }
        assertEquals(Series.CAPACITY, peak);
        assertTrue(s.size() > Series.CAPACITY / 2, "" + s.size());
        double[][] p = s.points(400);
        assertEquals(0, p[0][0]);
        assertEquals(n - 1, p[0][p[0].length - 1]);
        assertTrue(Arrays.stream(p[1]).anyMatch(y -> y == 9), "the spike stays");
        assertTrue(Arrays.stream(p[1]).anyMatch(y -> y == -9), "the dip stays");
        assertEquals(Math.sin((n - 1) / 500.0), s.lastY());
    }
}

package dev.dml.ray.data;

import tech.tablesaw.api.BooleanColumn;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.columns.Column;

/** Reads Tablesaw columns as numbers, with {@code NaN} for a missing value. */
final class Columns {

    private Columns() {}

    /** Tells whether a column can be a feature: numeric or boolean. */
    static boolean isNumeric(Column<?> c) {
        return c instanceof NumericColumn || c instanceof BooleanColumn;
    }

    /** Returns the value at {@code row} as a double, {@code NaN} when missing. */
    static double value(Column<?> c, int row) {
        if (c instanceof BooleanColumn) {
            BooleanColumn b = (BooleanColumn) c;
            return b.isMissing(row) ? Double.NaN : b.getByte(row);
        }
        return ((NumericColumn<?>) c).getDouble(row);
    }

    /**
     * Returns all values of a numeric or boolean column as floats, {@code NaN} when missing. The
     * common cases are bulk copies, not per-row boxing.
     */
    static float[] floats(Column<?> c) {
        if (c instanceof FloatColumn) {
            return ((FloatColumn) c).asFloatArray();
        }
        int n = c.size();
        float[] out = new float[n];
        if (c instanceof DoubleColumn) {
            DoubleColumn d = (DoubleColumn) c;
            for (int i = 0; i < n; i++) {
                out[i] = (float) d.getDouble(i);
            }
            return out;
        }
        for (int i = 0; i < n; i++) {
            out[i] = (float) value(c, i);
        }
        return out;
    }

    /**
     * Returns the index of the first row whose value is missing, not finite, or outside float
     * range (training reads floats: 1e300 would become infinity), or -1.
     */
    static int firstNonFinite(Column<?> c) {
        int n = c.size();
        if (c instanceof DoubleColumn) {
            DoubleColumn d = (DoubleColumn) c;
            for (int i = 0; i < n; i++) {
                if (!Float.isFinite((float) d.getDouble(i))) {
                    return i;
                }
            }
            return -1;
        }
        for (int i = 0; i < n; i++) {
            if (!Float.isFinite((float) value(c, i))) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Returns the edit distance between two names, ignoring case, where swapping two adjacent
     * letters counts as one edit (optimal string alignment).
     */
    static int distance(String a, String b) {
        String x = a.toLowerCase(java.util.Locale.ROOT);
        String y = b.toLowerCase(java.util.Locale.ROOT);
        int[][] d = new int[x.length() + 1][y.length() + 1];
        for (int i = 0; i <= x.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= y.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= x.length(); i++) {
            for (int j = 1; j <= y.length(); j++) {
                int cost = x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1;
                int v = Math.min(d[i - 1][j - 1] + cost, Math.min(d[i - 1][j], d[i][j - 1]) + 1);
                if (i > 1 && j > 1 && x.charAt(i - 1) == y.charAt(j - 2)
                        && x.charAt(i - 2) == y.charAt(j - 1)) {
                    v = Math.min(v, d[i - 2][j - 2] + 1);
                }
                d[i][j] = v;
            }
        }
        return d[x.length()][y.length()];
    }

    /** Returns the candidate closest to {@code name}, or {@code null} when none is close. */
    static String closest(String name, Iterable<String> candidates) {
        String best = null;
        int bestD = Integer.MAX_VALUE;
        for (String c : candidates) {
            int d = distance(name, c);
            if (d < bestD) {
                bestD = d;
                best = c;
            }
        }
        int limit = Math.max(2, name.length() / 2);
        return bestD <= limit ? best : null;
    }
}

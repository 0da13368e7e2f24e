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
}

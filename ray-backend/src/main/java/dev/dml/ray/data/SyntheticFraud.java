package dev.dml.ray.data;

import dev.dml.DmlException;
import java.util.SplittableRandom;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;

/**
 * A synthetic card-fraud table for tests and benchmarks: 30 standard-normal features {@code
 * v1..v30}, a log-normal {@code amount}, and a binary label {@code is_fraud} with about 1%
 * positives.
 *
 * <p>The label is {@code 1} when a hidden score passes a fixed threshold:
 *
 * <pre>
 * score = 2.2 v1 - 1.8 v2 + 1.5 v3 v4 + 1.2 (v5^2 - 1) - v6 + 0.8 (ln amount - 3.5) + N(0, 0.8^2)
 * </pre>
 *
 * <p>so a linear model reaches a ROC AUC of about 0.86 and a model that learns the product and
 * the square (an MLP) about 0.99. The other 24 features are noise. Row {@code i} depends only on
 * the seed and {@code i}'s position in the sequence, so the table is identical in every run and
 * on every JVM ({@link SplittableRandom} and {@link StrictMath} are fully specified).
 */
public final class SyntheticFraud {

    /** The number of {@code v} features. */
    public static final int FEATURES = 30;
    /** The label column. */
    public static final String LABEL = "is_fraud";
    /** The amount column. */
    public static final String AMOUNT = "amount";

    private static final double THRESHOLD = 10.05;

    private SyntheticFraud() {}

    /**
     * Generates the table.
     *
     * @param rows the number of rows, at least 1
     * @param seed the seed; the same seed gives the same table
     * @return a table named {@code synthetic_fraud}
     */
    public static Table generate(int rows, long seed) {
        if (rows < 1) {
            throw new DmlException(
                    "SyntheticFraud needs at least 1 row, got " + rows + ".",
                    "Pass a positive row count, e.g. generate(100_000, 42).");
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        double[][] v = new double[FEATURES][rows];
        double[] amount = new double[rows];
        int[] label = new int[rows];
        double[] row = new double[FEATURES];
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < FEATURES; j++) {
                row[j] = gaussian(rnd);
                v[j][i] = row[j];
            }
            double logAmount = 3.5 + gaussian(rnd);
            amount[i] = Math.round(StrictMath.exp(logAmount) * 100.0) / 100.0;
            double score = 2.2 * row[0] - 1.8 * row[1] + 1.5 * row[2] * row[3]
                    + 1.2 * (row[4] * row[4] - 1) - row[5] + 0.8 * (logAmount - 3.5)
                    + 0.8 * gaussian(rnd);
            label[i] = score > THRESHOLD ? 1 : 0;
        }
        Table t = Table.create("synthetic_fraud");
        for (int j = 0; j < FEATURES; j++) {
            t.addColumns(DoubleColumn.create("v" + (j + 1), v[j]));
        }
        t.addColumns(DoubleColumn.create(AMOUNT, amount), IntColumn.create(LABEL, label));
        return t;
    }

    /**
     * Returns the selection {@code v1..v30, amount -> is_fraud} (binary classes).
     *
     * @return the column selection
     */
    public static ColumnSelection selection() {
        return ColumnSelection.builder()
                .addFeatureRange("v", 1, FEATURES)
                .addFeature(AMOUNT)
                .setLabel(LABEL, LabelKind.CLASSES)
                .build();
    }

    /** Box–Muller with a fixed draw order, so values do not depend on the JDK version. */
    static double gaussian(SplittableRandom rnd) {
        double u1 = rnd.nextDouble();
        double u2 = rnd.nextDouble();
        return StrictMath.sqrt(-2.0 * StrictMath.log1p(-u1)) * StrictMath.cos(2.0 * Math.PI * u2);
    }
}

package dev.dml.ray.data;

import dev.dml.DmlException;
import java.util.SplittableRandom;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * A synthetic ratings table with a planted low-rank structure, for the recommender tests and
 * notebook: no ratings data set (MovieLens and the like) ships in a Debian, Maven or pip
 * package that this project can install, so one is made. Columns: {@code user} (text, {@code
 * u0, u1, ...}), {@code item} (integer ids) and {@code rating}.
 *
 * <p>Each user {@code u} and item {@code i} gets {@value #RANK} hidden standard-normal factors
 * {@code p_u}, {@code q_i} and a bias {@code N(0, 0.3^2)}; a rating is
 *
 * <pre>
 * rating = 3.5 + b_u + b_i + 0.5 p_u . q_i + N(0, 0.3^2)
 * </pre>
 *
 * <p>on a random {@code density} of the (user, item) pairs. The mean rating predicts with an
 * RMSE of about 1.0; the biases alone about 0.92 (the factor term has variance 0.75); the
 * planted model 0.3, the noise. Like {@link SyntheticFraud}, the table depends only on its
 * arguments, the same on every JVM.
 */
public final class SyntheticRatings {

    /** The rank of the planted structure. */
    public static final int RANK = 3;
    /** The label column. */
    public static final String RATING = "rating";

    private SyntheticRatings() {}

    /**
     * Generates the table.
     *
     * @param users the number of users, at least 1
     * @param items the number of items, at least 1
     * @param density the fraction of (user, item) pairs rated, in (0, 1]
     * @param seed the seed; the same arguments give the same table
     * @return a table named {@code synthetic_ratings}, its rows in user then item order
     */
    public static Table generate(int users, int items, double density, long seed) {
        if (users < 1 || items < 1 || !(density > 0 && density <= 1)) {
            throw new DmlException("SyntheticRatings needs users and items of at least 1 and a"
                    + " density in (0, 1]; got " + users + ", " + items + ", " + density + ".",
                    "Pass e.g. generate(300, 200, 0.1, 42).");
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        double[][] p = factors(users, rnd);
        double[][] q = factors(items, rnd);
        StringColumn user = StringColumn.create("user");
        IntColumn item = IntColumn.create("item");
        DoubleColumn rating = DoubleColumn.create(RATING);
        for (int u = 0; u < users; u++) {
            for (int i = 0; i < items; i++) {
                if (rnd.nextDouble() >= density) {
                    continue;
                }
                double dot = 0;
                for (int k = 0; k < RANK; k++) {
                    dot += p[u][k] * q[i][k];
                }
                user.append("u" + u);
                item.append(1000 + i);
                rating.append(3.5 + p[u][RANK] + q[i][RANK] + 0.5 * dot
                        + 0.3 * SyntheticFraud.gaussian(rnd));
            }
        }
        return Table.create("synthetic_ratings", user, item, rating);
    }

    /** Rows of {@link #RANK} standard-normal factors and a bias of standard deviation 0.3. */
    private static double[][] factors(int n, SplittableRandom rnd) {
        double[][] f = new double[n][RANK + 1];
        for (int r = 0; r < n; r++) {
            for (int k = 0; k < RANK; k++) {
                f[r][k] = SyntheticFraud.gaussian(rnd);
            }
            f[r][RANK] = 0.3 * SyntheticFraud.gaussian(rnd);
        }
        return f;
    }
}

package dev.dml.cost;

/**
 * What one node costs and why.
 *
 * @param usdPerHour dollars per hour; 0 for a node nobody priced, NaN when its price is not
 *     known ({@link #problem()} says why)
 * @param what how it was priced, e.g. {@code aws g5.xlarge spot, us-east-1 (dml's price
 *     catalogue, 2025-05-31)} or {@code not priced}
 * @param spot whether it is a spot instance, which can be pre-empted
 * @param problem one line on why the price is not known; empty when it is
 */
public record NodePrice(double usdPerHour, String what, boolean spot, String problem) {

    /** A node without labels on a cluster nobody priced: the embedded local cluster. */
    public static final NodePrice UNPRICED = new NodePrice(0, "not priced", false, "");

    /**
     * Tells whether someone priced the node (a label, a catalogue or a rate).
     *
     * @return {@code false} for {@link #UNPRICED}
     */
    public boolean priced() {
        return !UNPRICED.equals(this);
    }

    /**
     * Tells whether the price is known.
     *
     * @return {@code false} when {@link #usdPerHour()} is NaN
     */
    public boolean known() {
        return !Double.isNaN(usdPerHour);
    }

    /**
     * Says what the node costs, as {@code %dml cluster} lists it.
     *
     * @return e.g. {@code $0.192/h: aws m5.xlarge on-demand, us-east-1 (...)}, {@code not
     *     priced}, or {@code unknown: } and the problem
     */
    public String describe() {
        if (!known()) {
            return "unknown: " + problem;
        }
        return priced() ? "$" + Pricing.plain(usdPerHour) + "/h: " + what : what;
    }
}

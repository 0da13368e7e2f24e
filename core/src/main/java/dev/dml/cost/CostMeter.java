package dev.dml.cost;

/**
 * A job's dollars so far: its rate (the sum of the prices of the nodes its workers occupy)
 * integrated over time. The rate may change, when a recovery moves workers to other nodes. Not
 * thread-safe: one thread drives it. Times are {@link System#nanoTime()} readings.
 */
public final class CostMeter {

    private double spent;
    private double usdPerHour;
    private long since = Long.MIN_VALUE;

    /**
     * Starts counting at a rate.
     *
     * @param nanos now
     * @param rate dollars per hour
     */
    public void start(long nanos, double rate) {
        spent = 0;
        since = nanos;
        usdPerHour = rate;
    }

    /**
     * Changes the rate from now on; what was spent so far stays.
     *
     * @param nanos now
     * @param rate dollars per hour
     */
    public void setRate(long nanos, double rate) {
        spent = spent(nanos);
        since = nanos;
        usdPerHour = rate;
    }

    /**
     * Returns the dollars spent from the start until a moment.
     *
     * @param nanos the moment
     * @return dollars; 0 before {@link #start}
     */
    public double spent(long nanos) {
        if (since == Long.MIN_VALUE) {
            return 0;
        }
        return spent + usdPerHour * Math.max(0, nanos - since) / 3.6e12;
    }

    /**
     * Returns the current rate.
     *
     * @return dollars per hour
     */
    public double usdPerHour() {
        return usdPerHour;
    }
}

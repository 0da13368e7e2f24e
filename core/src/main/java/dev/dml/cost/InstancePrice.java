package dev.dml.cost;

/**
 * One row of a price catalogue: an instance type in one region (and zone), with its on-demand
 * and spot prices and where they come from.
 *
 * @param cloud {@code aws}, {@code gcp}, {@code azure}; empty when the catalogue does not say
 *     (a SkyPilot {@code vms.csv} is one file per cloud)
 * @param instanceType e.g. {@code g5.xlarge}
 * @param accelerator e.g. {@code A10G}; empty for a CPU instance
 * @param acceleratorCount accelerators per instance; 0 for a CPU instance
 * @param vcpus virtual CPUs; NaN when not given
 * @param memoryGiB memory in GiB; NaN when not given
 * @param onDemand dollars per hour on demand; NaN when the catalogue has none
 * @param spot dollars per hour as a spot instance; NaN when the catalogue has none
 * @param region e.g. {@code us-east-1}
 * @param zone e.g. {@code us-east-1a}; empty when the price holds for the whole region
 * @param source where the price was read; empty for a user's catalogue without the column
 * @param date when it was read, e.g. {@code 2025-05-31}; empty when not given
 * @param note what is approximate about the row; empty when nothing
 */
public record InstancePrice(String cloud, String instanceType, String accelerator,
        int acceleratorCount, double vcpus, double memoryGiB, double onDemand, double spot,
        String region, String zone, String source, String date, String note) {

    /**
     * Returns the price in a market.
     *
     * @param market on-demand or spot
     * @return dollars per hour; NaN when the catalogue has no price in that market
     */
    public double price(Market market) {
        return market == Market.SPOT ? spot : onDemand;
    }

    /**
     * Names the row as a price reads best: {@code aws g5.xlarge, us-east-1}.
     *
     * @return the words
     */
    public String label() {
        return (cloud.isEmpty() ? "" : cloud + " ") + instanceType + ", " + region;
    }
}

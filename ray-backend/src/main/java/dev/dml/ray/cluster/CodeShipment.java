package dev.dml.ray.cluster;

import java.util.List;
import java.util.Map;

/**
 * What storing a driver's code packages in the cluster did ({@link CodePackages}): what was
 * uploaded and what the cluster had already, and how long it took.
 *
 * @param uploaded the packages stored now, with their sizes in bytes
 * @param cached the packages the cluster had already (content-named: nothing to send)
 * @param seconds the wall time, Python's start included; it overlaps the driver's start
 */
public record CodeShipment(Map<String, Long> uploaded, List<String> cached, double seconds) {

    /** The maps and lists are immutable. */
    public CodeShipment {
        uploaded = Map.copyOf(uploaded);
        cached = List.copyOf(cached);
    }

    /**
     * Returns the bytes uploaded.
     *
     * @return the sum of the uploaded packages' sizes
     */
    public long uploadedBytes() {
        return uploaded.values().stream().mapToLong(Long::longValue).sum();
    }
}

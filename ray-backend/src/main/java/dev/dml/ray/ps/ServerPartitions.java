package dev.dml.ray.ps;

import dev.dml.DmlException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Which parameter tensors each server holds: whole tensors, the largest first to the server
 * that holds the fewest floats so far, so that the servers carry about equal bytes. A server's
 * partition is its tensors' floats in the order of the flat parameter vector. Crosses Ray, so a
 * plain Serializable class.
 */
public final class ServerPartitions implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Per server: {offset, length} of each of its tensors in the flat vector, by offset. */
    private final int[][][] ranges;
    private final int total;

    private ServerPartitions(int[][][] ranges, int total) {
        this.ranges = ranges;
        this.total = total;
    }

    /**
     * Deals the tensors of a model to {@code servers} servers.
     *
     * @param shapes each parameter tensor's shape, in the order of the flat vector
     * @param servers at least 1, at most the tensors
     * @return the layout
     */
    public static ServerPartitions of(List<long[]> shapes, int servers) {
        if (servers < 1 || servers > shapes.size()) {
            throw new DmlException("{ps=" + servers + "} asks for " + servers + " parameter"
                    + " servers, but the model has " + shapes.size() + " parameter tensors to"
                    + " deal among them.", "Set {ps} to at most " + shapes.size() + ".");
        }
        int[] size = shapes.stream().mapToInt(s -> (int) Arrays.stream(s).reduce(1,
                (a, b) -> a * b)).toArray();
        int[] offset = new int[size.length];
        for (int i = 1; i < size.length; i++) {
            offset[i] = offset[i - 1] + size[i - 1];
        }
        long[] load = new long[servers];
        List<List<Integer>> held = new ArrayList<>();
        for (int s = 0; s < servers; s++) {
            held.add(new ArrayList<>());
        }
        IntStream.range(0, size.length).boxed()
                .sorted(Comparator.comparingInt((Integer i) -> -size[i]).thenComparing(i -> i))
                .forEach(t -> {
                    int least = 0;
                    for (int s = 1; s < servers; s++) {
                        // an empty server first: every server holds at least one tensor
                        if (held.get(s).isEmpty() != held.get(least).isEmpty()
                                ? held.get(s).isEmpty() : load[s] < load[least]) {
                            least = s;
                        }
                    }
                    held.get(least).add(t);
                    load[least] += size[t];
                });
        int[][][] ranges = new int[servers][][];
        for (int s = 0; s < servers; s++) {
            ranges[s] = held.get(s).stream().sorted()
                    .map(t -> new int[] {offset[t], size[t]}).toArray(int[][]::new);
        }
        return new ServerPartitions(ranges, offset[size.length - 1] + size[size.length - 1]);
    }

    /** The servers. @return at least 1 */
    public int servers() {
        return ranges.length;
    }

    /** The floats of the whole flat vector. @return the parameter count */
    public int total() {
        return total;
    }

    /**
     * The floats server {@code s} holds.
     *
     * @param s a server
     * @return its partition's length
     */
    public int size(int s) {
        return Arrays.stream(ranges[s]).mapToInt(r -> r[1]).sum();
    }

    /**
     * Copies server {@code s}'s part of a flat vector into a partition.
     *
     * @param flat the whole vector
     * @param s the server
     * @return the partition, {@link #size(int)} floats
     */
    public float[] gather(float[] flat, int s) {
        float[] out = new float[size(s)];
        int at = 0;
        for (int[] r : ranges[s]) {
            System.arraycopy(flat, r[0], out, at, r[1]);
            at += r[1];
        }
        return out;
    }

    /**
     * Copies a partition of server {@code s} into its place in a flat vector.
     *
     * @param partition the partition
     * @param s the server
     * @param flat the whole vector, written
     */
    public void scatter(float[] partition, int s, float[] flat) {
        int at = 0;
        for (int[] r : ranges[s]) {
            System.arraycopy(partition, at, flat, r[0], r[1]);
            at += r[1];
        }
    }
}

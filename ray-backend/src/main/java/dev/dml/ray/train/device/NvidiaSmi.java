package dev.dml.ray.train.device;

import java.util.ArrayList;
import java.util.List;

/**
 * The GPUs' utilisation and memory as NVIDIA's {@code nvidia-smi} reports them (it reads NVML):
 * the query {@link #COMMAND}, whose output is one line per GPU, {@code index, uuid,
 * utilization.gpu, memory.used, memory.total}, comma-separated with no header and no units
 * (percent and MiB), as {@code nvidia-smi --help-query-gpu} documents the fields. A field a GPU
 * does not support reads {@code [N/A]} or {@code [Not Supported]}. {@code nvidia-smi} numbers
 * the GPUs physically, as Ray's GPU ids do, whatever {@code CUDA_VISIBLE_DEVICES} says.
 */
final class NvidiaSmi {

    /** The query, run as a process. */
    static final List<String> COMMAND = List.of("nvidia-smi",
            "--query-gpu=index,uuid,utilization.gpu,memory.used,memory.total",
            "--format=csv,noheader,nounits");

    private static final long MIB = 1L << 20;

    private NvidiaSmi() {}

    /**
     * One GPU's line.
     *
     * @param index the physical index
     * @param uuid e.g. {@code GPU-5c3a...}
     * @param utilization percent of the last sample period a kernel ran; NaN when unsupported
     * @param memoryUsedBytes GPU memory in use; -1 when unsupported
     * @param memoryTotalBytes GPU memory in all; -1 when unsupported
     */
    public record Gpu(int index, String uuid, double utilization, long memoryUsedBytes,
            long memoryTotalBytes) {}

    /**
     * Parses the query's output; a line that is not five fields with an index is skipped.
     *
     * @param out what {@link #COMMAND} printed
     * @return the GPUs, in the order printed
     */
    static List<Gpu> parse(String out) {
        List<Gpu> gpus = new ArrayList<>();
        for (String line : out.split("\\R")) {
            String[] f = line.split(",");
            if (f.length != 5) {
                continue;
            }
            try {
                gpus.add(new Gpu(Integer.parseInt(f[0].trim()), f[1].trim(), number(f[2]),
                        mib(f[3]), mib(f[4])));
            } catch (NumberFormatException e) {
                // a warning or an error line in place of a GPU's
            }
        }
        return gpus;
    }

    /**
     * Finds the GPU with a physical index.
     *
     * @param gpus the parsed GPUs
     * @param index the physical index (Ray's GPU id)
     * @return the GPU, or null when it is not listed
     */
    static Gpu find(List<Gpu> gpus, long index) {
        for (Gpu g : gpus) {
            if (g.index() == index) {
                return g;
            }
        }
        return null;
    }

    private static double number(String field) {
        String s = field.trim();
        return s.startsWith("[") ? Double.NaN : Double.parseDouble(s);
    }

    private static long mib(String field) {
        double v = number(field);
        return Double.isNaN(v) ? -1 : Math.round(v * MIB);
    }
}

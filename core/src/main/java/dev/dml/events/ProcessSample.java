package dev.dml.events;

import java.io.Serializable;

/**
 * How one worker process looked at a moment: CPU use since its previous sample, used Java heap,
 * resident memory, and, on a GPU node, the GPU's utilisation and memory. A plain {@link
 * Serializable} class, because it crosses Ray inside worker reports (Ray's serializer rejects
 * records).
 */
public final class ProcessSample implements Serializable {

    private static final long serialVersionUID = 1L;

    /** A process not sampled yet. */
    public static final ProcessSample NONE = new ProcessSample(Double.NaN, 0, 0);

    private final double cpuPercent;
    private final long heapBytes;
    private final long rssBytes;
    private final double gpuPercent;
    private final long gpuMemoryBytes;
    /** Object-store requests this process tried again, since it started. */
    private final long storageRetries;
    /** The bytes of optimizer state the worker holds; -1 when not reported. */
    private final long optimizerStateBytes;
    /** The bytes of gradient buffers dml holds for the worker's step; -1 when not reported. */
    private final long gradientBufferBytes;

    /**
     * A sample of a process without a GPU.
     *
     * @param cpuPercent CPU use, 100 = one core; NaN when unknown
     * @param heapBytes used Java heap
     * @param rssBytes resident set size; 0 when unknown
     */
    public ProcessSample(double cpuPercent, long heapBytes, long rssBytes) {
        this(cpuPercent, heapBytes, rssBytes, Double.NaN, -1);
    }

    /**
     * A sample of a process with a GPU.
     *
     * @param cpuPercent CPU use, 100 = one core; NaN when unknown
     * @param heapBytes used Java heap
     * @param rssBytes resident set size; 0 when unknown
     * @param gpuPercent the GPU's utilisation, 0 to 100; NaN without a GPU
     * @param gpuMemoryBytes the GPU memory in use; -1 without a GPU
     */
    public ProcessSample(double cpuPercent, long heapBytes, long rssBytes, double gpuPercent,
            long gpuMemoryBytes) {
        this(cpuPercent, heapBytes, rssBytes, gpuPercent, gpuMemoryBytes, 0, -1, -1);
    }

    private ProcessSample(double cpuPercent, long heapBytes, long rssBytes, double gpuPercent,
            long gpuMemoryBytes, long storageRetries, long optimizerStateBytes,
            long gradientBufferBytes) {
        this.storageRetries = storageRetries;
        this.optimizerStateBytes = optimizerStateBytes;
        this.gradientBufferBytes = gradientBufferBytes;
        this.cpuPercent = cpuPercent;
        this.heapBytes = heapBytes;
        this.rssBytes = rssBytes;
        this.gpuPercent = gpuPercent;
        this.gpuMemoryBytes = gpuMemoryBytes;
    }

    /** @return CPU use since the previous sample, 100 = one core; NaN when unknown */
    public double cpuPercent() {
        return cpuPercent;
    }

    /** @return used Java heap, in bytes */
    public long heapBytes() {
        return heapBytes;
    }

    /** @return resident set size in bytes; 0 when unknown */
    public long rssBytes() {
        return rssBytes;
    }

    /** @return the GPU's utilisation, 0 to 100; NaN without a GPU */
    public double gpuPercent() {
        return gpuPercent;
    }

    /** @return GPU memory in use, in bytes; -1 without a GPU */
    public long gpuMemoryBytes() {
        return gpuMemoryBytes;
    }

    /**
     * This sample with the count of object-store (S3) requests the process tried again after a
     * transient failure.
     *
     * @param retries the count since the process started
     * @return a copy with it
     */
    public ProcessSample withStorageRetries(long retries) {
        return new ProcessSample(cpuPercent, heapBytes, rssBytes, gpuPercent, gpuMemoryBytes,
                retries, optimizerStateBytes, gradientBufferBytes);
    }

    /**
     * This sample with the bytes of optimizer state the worker holds: 1/N of the model's with
     * {@code --shard-optimizer} on N workers.
     *
     * @param bytes 4 per float of the optimizer's state arrays
     * @return a copy with it
     */
    public ProcessSample withOptimizerStateBytes(long bytes) {
        return new ProcessSample(cpuPercent, heapBytes, rssBytes, gpuPercent, gpuMemoryBytes,
                storageRetries, bytes, gradientBufferBytes);
    }

    /**
     * This sample with the bytes of gradient buffers dml holds for the worker's step, beside
     * the engine's own gradient tensors: the model's length for an unsharded or ZeRO-1 worker,
     * its 1/N of every bucket plus bucket-sized transients with {@code --shard-gradients}.
     *
     * @param bytes 4 per float of the buffers
     * @return a copy with it
     */
    public ProcessSample withGradientBufferBytes(long bytes) {
        return new ProcessSample(cpuPercent, heapBytes, rssBytes, gpuPercent, gpuMemoryBytes,
                storageRetries, optimizerStateBytes, bytes);
    }

    /** @return the bytes of gradient buffers dml holds for the step; -1 when not reported */
    public long gradientBufferBytes() {
        return gradientBufferBytes;
    }

    /** @return the bytes of optimizer state the worker holds; -1 when not reported */
    public long optimizerStateBytes() {
        return optimizerStateBytes;
    }

    /** @return object-store requests tried again since the process started */
    public long storageRetries() {
        return storageRetries;
    }

    /** @return {@code true} when the process has a GPU */
    public boolean hasGpu() {
        return gpuMemoryBytes >= 0;
    }

    @Override
    public String toString() {
        return String.format("cpu %.0f%%, heap %d MiB, rss %d MiB%s", cpuPercent, heapBytes >> 20,
                rssBytes >> 20, hasGpu() ? String.format(", gpu %.0f%% %d MiB", gpuPercent,
                        gpuMemoryBytes >> 20) : "");
    }
}

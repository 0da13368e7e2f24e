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
    /** Milliseconds per step in each {@link StepPhase}, over the last report; null if none. */
    private final double[] phaseMillis;

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
        this(cpuPercent, heapBytes, rssBytes, gpuPercent, gpuMemoryBytes, 0, -1, -1, null);
    }

    private ProcessSample(double cpuPercent, long heapBytes, long rssBytes, double gpuPercent,
            long gpuMemoryBytes, long storageRetries, long optimizerStateBytes,
            long gradientBufferBytes, double[] phaseMillis) {
        this.storageRetries = storageRetries;
        this.optimizerStateBytes = optimizerStateBytes;
        this.gradientBufferBytes = gradientBufferBytes;
        this.phaseMillis = phaseMillis;
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
                retries, optimizerStateBytes, gradientBufferBytes, phaseMillis);
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
                storageRetries, bytes, gradientBufferBytes, phaseMillis);
    }

    /**
     * This sample with the bytes of gradient buffers dml holds for the worker's step, beside
     * the engine's own gradient tensors: the model's length for an unsharded or ZeRO-1 worker,
     * its 1/N of every bucket plus one array of a piece with {@code --shard-gradients}.
     *
     * @param bytes 4 per float of the buffers
     * @return a copy with it
     */
    public ProcessSample withGradientBufferBytes(long bytes) {
        return new ProcessSample(cpuPercent, heapBytes, rssBytes, gpuPercent, gpuMemoryBytes,
                storageRetries, optimizerStateBytes, bytes, phaseMillis);
    }

    /** @return the bytes of gradient buffers dml holds for the step; -1 when not reported */
    public long gradientBufferBytes() {
        return gradientBufferBytes;
    }

    /**
     * This sample with where the worker's steps spent their time since its previous report.
     *
     * @param millisPerStep milliseconds per step in each {@link StepPhase}, in its order
     * @return a copy with it
     */
    public ProcessSample withStepPhases(double[] millisPerStep) {
        if (millisPerStep.length != StepPhase.values().length) {
            throw new IllegalArgumentException(millisPerStep.length + " phases, not "
                    + StepPhase.values().length);
        }
        return new ProcessSample(cpuPercent, heapBytes, rssBytes, gpuPercent, gpuMemoryBytes,
                storageRetries, optimizerStateBytes, gradientBufferBytes, millisPerStep.clone());
    }

    /**
     * Returns how long the worker's steps spent in one phase, on average over the steps of its
     * latest report.
     *
     * @param phase the phase
     * @return milliseconds per step; NaN when the worker reported no steps
     */
    public double stepPhaseMillis(StepPhase phase) {
        return phaseMillis == null ? Double.NaN : phaseMillis[phase.ordinal()];
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

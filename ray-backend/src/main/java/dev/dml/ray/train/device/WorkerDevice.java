package dev.dml.ray.train.device;

import ai.djl.Device;

/**
 * The device a worker trains on, chosen once per actor from what {@link GpuProbe} finds and
 * {@link GpuAssignment} decides; the CPU when the job asked for no GPU. A GPU job's worker
 * first points DJL at the node's CUDA libtorch ({@link CudaNatives}), and samples its GPU in
 * the background ({@link GpuSampler}) for the worker's process samples. Lives in the worker.
 */
public final class WorkerDevice implements AutoCloseable {

    private Device device;
    private volatile GpuSampler sampler;
    private double asked = Double.NaN;

    /**
     * Returns the device for {@code gpus} GPUs, choosing it on the first call.
     *
     * @param gpus {@code --gpus-per-worker}
     * @return {@code Device.cpu()} or the CUDA device Ray assigned
     * @throws dev.dml.DmlException when GPUs were asked for and cannot be used
     */
    public synchronized Device select(double gpus) {
        if (device == null || gpus != asked) {
            close();
            if (gpus > 0) {
                CudaNatives.apply(gpus); // before GpuProbe loads the engine
                GpuAssignment.Facts f = GpuProbe.facts(gpus);
                device = Device.gpu(GpuAssignment.choose(f));
                sampler = GpuSampler.start(f.rayGpuIds().get(0));
            } else {
                device = Device.cpu();
            }
            asked = gpus;
        }
        return device;
    }

    /** Returns the GPU's latest utilisation and memory; null on the CPU or before a sample. */
    public NvidiaSmi.Gpu gpu() {
        GpuSampler s = sampler;
        return s == null ? null : s.latest();
    }

    /** Stops sampling the GPU; the next {@link #select} chooses again. */
    @Override
    public synchronized void close() {
        device = null;
        if (sampler != null) {
            sampler.close();
            sampler = null;
        }
    }
}

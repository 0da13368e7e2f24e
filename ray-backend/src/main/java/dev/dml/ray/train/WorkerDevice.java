package dev.dml.ray.train;

import ai.djl.Device;

/**
 * The device a worker trains on, chosen once per actor from what {@link GpuProbe} finds and
 * {@link GpuAssignment} decides; the CPU when the job asked for no GPU. A GPU job's worker
 * first points DJL at the node's CUDA libtorch ({@link CudaNatives}). Lives in the worker.
 */
final class WorkerDevice {

    private Device device;
    private double asked = Double.NaN;

    /**
     * Returns the device for {@code gpus} GPUs, choosing it on the first call.
     *
     * @param gpus {@code --gpus-per-worker}
     * @return {@code Device.cpu()} or the CUDA device Ray assigned
     * @throws dev.dml.DmlException when GPUs were asked for and cannot be used
     */
    synchronized Device select(double gpus) {
        if (device == null || gpus != asked) {
            if (gpus > 0) {
                CudaNatives.apply(gpus); // before GpuProbe loads the engine
            }
            int ordinal = gpus > 0 ? GpuAssignment.choose(GpuProbe.facts(gpus))
                    : GpuAssignment.CPU;
            device = ordinal == GpuAssignment.CPU ? Device.cpu() : Device.gpu(ordinal);
            asked = gpus;
        }
        return device;
    }
}

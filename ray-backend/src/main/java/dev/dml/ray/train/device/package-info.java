/**
 * A worker's device and telemetry: which GPU a worker takes, probing CUDA, sampling the GPU
 * ({@code nvidia-smi}) and the process, and the report a worker returns with each call. Knows
 * nothing of jobs, steps or strategies.
 */
package dev.dml.ray.train.device;

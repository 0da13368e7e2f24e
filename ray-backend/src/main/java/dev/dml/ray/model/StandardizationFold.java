package dev.dml.ray.model;

import dev.dml.ray.data.FeatureStats;

/**
 * Folds {@code (x - mean) / std} into the linear layer after it, so that the layer takes raw
 * features: {@code W (x - m) / s + b = (W / s) x + (b - W (m / s))}.
 */
final class StandardizationFold {

    private StandardizationFold() {}

    /**
     * Rewrites a linear layer's weights in place.
     *
     * @param stats the standardisation, one mean and std per input
     * @param weight {@code [out, in]}, row-major
     * @param bias {@code [out]}
     */
    static void apply(FeatureStats stats, Safetensors.Tensor weight, Safetensors.Tensor bias) {
        float[] mean = stats.means();
        float[] std = stats.stds();
        int in = mean.length;
        float[] w = weight.data();
        float[] b = bias.data();
        if (weight.shape().length != 2 || weight.shape()[1] != in || b.length * in != w.length) {
            throw new IllegalArgumentException("a linear layer of " + in + " inputs expected");
        }
        for (int o = 0; o < b.length; o++) {
            double shift = 0;
            for (int j = 0; j < in; j++) {
                float scaled = w[o * in + j] / std[j];
                shift += (double) scaled * mean[j];
                w[o * in + j] = scaled;
            }
            b[o] = (float) (b[o] - shift);
        }
    }
}

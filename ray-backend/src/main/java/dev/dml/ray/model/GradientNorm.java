package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.ndarray.NDArray;
import java.nio.FloatBuffer;

/**
 * The parts of gradient clipping ({@code --clip-norm}) on one gradient tensor: its sum of
 * squares, and scaling it in place. A CPU tensor is read through a host view of its own memory;
 * a staged one (a GPU's) is copied to the host to be summed and scaled on its device.
 */
final class GradientNorm {

    private GradientNorm() {}

    /** The sum of the squares of a gradient's values, in double, in index order. */
    static double squares(NDArray g, boolean staged) {
        if (staged) {
            try (NDArray h = g.toDevice(Device.cpu(), true)) {
                return squares(ParameterBuffers.view(h));
            }
        }
        return squares(ParameterBuffers.view(g));
    }

    private static double squares(FloatBuffer v) {
        double sum = 0;
        int n = v.limit();
        for (int i = 0; i < n; i++) {
            double x = v.get(i);
            sum += x * x;
        }
        return sum;
    }

    /** Multiplies a gradient by {@code scale}, in place. */
    static void scale(NDArray g, float scale, boolean staged) {
        if (staged) {
            GradMode.off(() -> {
                g.muli(scale);
            });
            return;
        }
        FloatBuffer v = ParameterBuffers.view(g);
        int n = v.limit();
        for (int i = 0; i < n; i++) {
            v.put(i, v.get(i) * scale);
        }
    }
}

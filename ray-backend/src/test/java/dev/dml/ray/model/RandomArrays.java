package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.Random;

/** Seeded random features and class labels for the model tests. */
final class RandomArrays {

    private RandomArrays() {}

    /** Gaussian features, {@code rows x cols}. */
    static NDArray features(NDManager manager, int rows, int cols, long seed) {
        Random r = new Random(seed);
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return manager.create(v, new Shape(rows, cols));
    }

    /** Class labels in {@code [0, k)}. */
    static NDArray classes(NDManager manager, int rows, int k, long seed) {
        Random r = new Random(seed);
        int[] v = new int[rows];
        for (int i = 0; i < rows; i++) {
            v[i] = r.nextInt(k);
        }
        return manager.create(v);
    }
}

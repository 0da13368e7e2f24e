package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** A model test's own PyTorch manager, opened before each test and closed after it. */
abstract class OnPyTorch {

    /** The arrays a test makes live here and are freed with it. */
    protected NDManager manager;

    @BeforeEach
    void openManager() {
        manager = NDManager.newBaseManager("PyTorch");
    }

    @AfterEach
    void closeManager() {
        manager.close();
    }

    /** Gaussian features, {@code rows x cols}, in this test's manager. */
    protected NDArray features(int rows, int cols, long seed) {
        return RandomArrays.features(manager, rows, cols, seed);
    }

    /** Class labels in {@code [0, k)}, in this test's manager. */
    protected NDArray classes(int rows, int k, long seed) {
        return RandomArrays.classes(manager, rows, k, seed);
    }
}

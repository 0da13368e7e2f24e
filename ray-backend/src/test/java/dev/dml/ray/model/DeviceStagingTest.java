package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import java.nio.FloatBuffer;
import org.junit.jupiter.api.Test;

/**
 * The GPU path's logic, run on the CPU: parameters written and read through host staging,
 * gradients all-reduced through a reused host buffer, and the optimizer as NDArray operations
 * ({@link DeviceOptimizer}). SGD must train bitwise as the host path does; Adam within float
 * rounding (PyTorch's vectorised kernels round some steps differently from the Java loop). State
 * saves in the same format either way, and a staged model resumes exactly.
 */
class DeviceStagingTest extends OnPyTorch {

    /** A step as a data-parallel worker takes it: gradients out to a buffer, back, then step. */
    private static void step(ModelStage m, NDArray x, NDArray y, float[] buffer) {
        m.trainBatch(x, y);
        m.copyGradients(FloatBuffer.wrap(buffer, 0, m.parameterCount()));
        m.setGradients(FloatBuffer.wrap(buffer, 0, m.parameterCount()));
        m.step();
    }

    private void trainsAsTheHostPath(OptimizerSpec opt, float tolerance) {
        ModelSpec spec = ModelSpec.mlp(8, 3, 16, 8);
        NDArray x = features(32, 8, 1);
        NDArray y = classes(32, 3, 2);
        try (ModelStage host = ModelStage.openWhole(spec, opt, "t/host");
                ModelStage staged = ModelStage.openStaged(spec, opt, "t/staged", Precision.FP32)) {
            assertArrayEquals(host.parameters(), staged.parameters());
            float[] buffer = new float[host.parameterCount() + 1];
            for (int i = 0; i < 5; i++) {
                step(host, x, y, buffer);
                step(staged, x, y, buffer);
                if (tolerance == 0) {
                    assertArrayEquals(host.gradients(), staged.gradients(), "gradients " + i);
                    assertArrayEquals(host.parameters(), staged.parameters(), "step " + i);
                } else {
                    assertArrayEquals(host.parameters(), staged.parameters(), tolerance);
                }
            }
            assertEquals(5, staged.steps());
        }
    }

    @Test
    void adamOnTheDeviceTrainsAsTheJavaLoopWithinRounding() {
        trainsAsTheHostPath(OptimizerSpec.adam(0.01f), 1e-6f);
    }

    @Test
    void sgdWithMomentumOnTheDeviceTrainsBitwiseAsTheJavaLoop() {
        trainsAsTheHostPath(OptimizerSpec.sgd(0.1f, 0.9f), 0);
    }

    @Test
    void plainSgdOnTheDeviceTrainsBitwiseAsTheJavaLoop() {
        trainsAsTheHostPath(OptimizerSpec.sgd(0.1f, 0f), 0);
    }

    @Test
    void stagedStateResumesExactlyAndMovesBetweenPaths() {
        ModelSpec spec = ModelSpec.mlp(8, 3, 16);
        OptimizerSpec opt = OptimizerSpec.adam(0.01f);
        NDArray x = features(32, 8, 3);
        NDArray y = classes(32, 3, 4);
        float[] buffer;
        byte[] saved;
        float[] expected;
        try (ModelStage r = ModelStage.openStaged(spec, opt, "t/0", Precision.FP32)) {
            buffer = new float[r.parameterCount()];
            for (int i = 0; i < 3; i++) {
                step(r, x, y, buffer);
            }
            saved = r.saveState();
            for (int i = 0; i < 3; i++) {
                step(r, x, y, buffer);
            }
            expected = r.parameters();
        }
        try (ModelStage staged = ModelStage.openStaged(spec, opt, "t/1", Precision.FP32);
                ModelStage host = ModelStage.openWhole(spec, opt, "t/2")) {
            staged.loadState(saved);
            host.loadState(saved);
            assertEquals(3, staged.steps());
            assertArrayEquals(saved, staged.saveState());
            assertArrayEquals(saved, host.saveState()); // one format for both paths
            for (int i = 0; i < 3; i++) {
                step(staged, x, y, buffer);
                step(host, x, y, buffer);
            }
            assertArrayEquals(expected, staged.parameters());
            assertArrayEquals(expected, host.parameters(), 1e-6f);
        }
    }

    @Test
    void stagedStepsDoNotLeakArrays() {
        ModelSpec spec = ModelSpec.mlp(8, 3, 16);
        NDArray x = features(32, 8, 5);
        NDArray y = classes(32, 3, 6);
        try (ModelStage r = ModelStage.openStaged(spec, OptimizerSpec.adam(0.01f), "t/0",
                Precision.FP32)) {
            float[] buffer = new float[r.parameterCount()];
            step(r, x, y, buffer);
            int before = r.manager().getManagedArrays().size();
            for (int i = 0; i < 5; i++) {
                step(r, x, y, buffer);
                r.saveState();
                r.score(x, y);
            }
            assertEquals(before, r.manager().getManagedArrays().size());
        }
    }
}

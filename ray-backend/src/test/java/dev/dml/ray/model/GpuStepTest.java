package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.Device;
import ai.djl.engine.Engine;
import ai.djl.engine.StandardCapabilities;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.nn.Parameter;
import ai.djl.util.cuda.CudaUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A worker's step on a real GPU, in float32 and in fp16: the parameters live on the GPU and the
 * model learns as it does on the CPU. Needs DJL's CUDA build of PyTorch and a GPU (see
 * docs/gpu.md); elsewhere, as in CI, it is skipped with the reason printed.
 */
class GpuStepTest {

    private NDManager manager;

    @BeforeEach
    void setUp() {
        boolean cuda = Engine.getEngine("PyTorch").hasCapability(StandardCapabilities.CUDA);
        int gpus = cuda ? CudaUtils.getGpuCount() : 0;
        String reason = !cuda ? "the PyTorch engine on the class path has no CUDA"
                : "CUDA sees no GPU";
        if (gpus == 0) {
            System.out.println("GpuStepTest skipped: " + reason);
        }
        Assumptions.assumeTrue(gpus > 0, reason);
        manager = NDManager.newBaseManager(Device.cpu(), "PyTorch");
    }

    @AfterEach
    void tearDown() {
        if (manager != null) {
            manager.close();
        }
    }

    private float train(Device device, Precision precision, NDArray x, NDArray y) {
        ModelSpec spec = ModelSpec.mlp(32, 4, 256, 128);
        try (ModelStage m = ModelStage.open(spec, OptimizerSpec.adam(0.003f), 0,
                spec.layerCount(), "gpu/" + precision, device, precision)) {
            for (Parameter p : m.buffers().parameters()) {
                assertEquals(device, p.getArray().getDevice());
            }
            float first = m.trainBatch(x, y);
            m.step();
            float last = first;
            for (int i = 0; i < 60; i++) {
                last = m.trainBatch(x, y);
                m.step();
            }
            assertTrue(last < first / 2, precision + " on " + device + ": " + first + " -> "
                    + last);
            return last;
        }
    }

    @Test
    void aStepOnTheGpuLearnsAsOnTheCpuInFloat32AndFp16() {
        NDArray x = RandomArrays.features(manager, 512, 32, 1);
        NDArray y = RandomArrays.classes(manager, 512, 4, 2);
        float cpu = train(Device.cpu(), Precision.FP32, x, y);
        float gpu = train(Device.gpu(0), Precision.FP32, x, y);
        float half = train(Device.gpu(0), Precision.FP16, x, y);
        assertEquals(cpu, gpu, 0.05, "float32 on the GPU");
        assertEquals(cpu, half, 0.1, "fp16 on the GPU");
    }
}

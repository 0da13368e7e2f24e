package dev.dml.ray.train.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every case of choosing a worker's device, from facts a GPU node would report. */
class GpuAssignmentTest {

    private static GpuAssignment.Facts facts(double asked, List<Long> ids, String visible,
            String flavor, boolean cuda, int devices, int driver) {
        return new GpuAssignment.Facts(asked, ids, visible, flavor, "2.7.1", cuda, devices,
                driver, "node-a");
    }

    private static DmlException refused(GpuAssignment.Facts f) {
        return assertThrows(DmlException.class, () -> GpuAssignment.choose(f));
    }

    @Test
    void noGpusAskedTrainsOnTheCpuWithoutLookingFurther() {
        assertEquals(GpuAssignment.CPU, GpuAssignment.choose(
                facts(0, List.of(), null, "cpu", false, 0, 0)));
    }

    @Test
    void theGpuRayAssignedIsTheDevice() {
        assertEquals(3, GpuAssignment.choose(facts(1, List.of(3L), null, "cu128", true, 4,
                12080)));
        // Ray listed the GPUs in CUDA_VISIBLE_DEVICES: CUDA numbers only those
        assertEquals(1, GpuAssignment.choose(facts(1, List.of(5L), "4,5", "cu128", true, 2,
                12080)));
        assertEquals(0, GpuAssignment.choose(facts(0.5, List.of(0L), null, "cu124", true, 1,
                12040)));
    }

    @Test
    void rayAssigningNoGpuIsRefused() {
        DmlException e = refused(facts(1, List.of(), null, "cu128", true, 1, 12080));
        assertEquals("No GPU assigned: Ray gave the worker on node-a no GPU, though"
                + " --gpus-per-worker is 1.", e.speaking(Vocabulary.NOTEBOOK).what());
        assertEquals("Run the job on a cluster whose nodes offer GPUs to Ray (ray start"
                + " --num-gpus), or set --gpus-per-worker 0 to train on CPUs.",
                e.speaking(Vocabulary.NOTEBOOK).hint());
    }

    @Test
    void anEngineWithoutCudaIsRefused() {
        DmlException e = refused(facts(1, List.of(0L), null, "cpu", false, 0, 0));
        assertEquals("No CUDA in the workers' engine: PyTorch 2.7.1 (DJL flavor cpu) on node-a"
                + " cannot use the GPU Ray assigned.", e.what());
        assertEquals("Give the workers DJL's CUDA build of PyTorch: PYTORCH_FLAVOR (e.g. cu128),"
                + " or PYTORCH_LIBRARY_PATH and PYTORCH_VERSION for an installed libtorch"
                + " (docs/gpu.md), or set optGpusPerWorker(0) to train on CPUs.", e.hint());
        // a libtorch of unknown flavor counts as CUDA only when the engine says so
        refused(facts(1, List.of(0L), null, null, false, 1, 12080));
        assertEquals(0, GpuAssignment.choose(facts(1, List.of(0L), null, null, true, 1, 12080)));
    }

    @Test
    void aBuildNewerThanTheDriverIsRefused() {
        DmlException e = refused(facts(1, List.of(0L), null, "cu128", true, 0, 11040));
        assertEquals("CUDA build and driver do not match: PyTorch 2.7.1 is built for CUDA 12.8,"
                + " but the NVIDIA driver on node-a supports CUDA up to 11.4.", e.what());
        // an older minor version of the same major that still finds no GPU
        refused(facts(1, List.of(0L), null, "cu128", true, 0, 12020));
        // minor-version compatibility: it runs where CUDA sees the GPU
        assertEquals(0, GpuAssignment.choose(facts(1, List.of(0L), null, "cu128", true, 1,
                12020)));
    }

    @Test
    void noDriverIsRefused() {
        DmlException e = refused(facts(1, List.of(0L), null, "cu128", true, 0, 0));
        assertEquals("No NVIDIA driver on node-a: the workers' CUDA build of PyTorch 2.7.1 finds"
                + " no GPU.", e.what());
    }

    @Test
    void aGpuCudaCannotSeeIsRefused() {
        DmlException e = refused(facts(1, List.of(2L), "0,1", "cu128", true, 2, 12080));
        assertEquals("CUDA on node-a sees 2 GPU (CUDA_VISIBLE_DEVICES=0,1), but Ray assigned"
                + " GPU 2.", e.what());
        refused(facts(1, List.of(4L), null, "cu128", true, 2, 12080));
    }

    @Test
    void moreThanOneGpuPerWorkerIsRefusedInTheDriver() {
        GpuAssignment.requireAtMostOne(1);
        GpuAssignment.requireAtMostOne(0.25);
        DmlException e = assertThrows(DmlException.class,
                () -> GpuAssignment.requireAtMostOne(2));
        assertEquals("Each worker trains on one GPU, but --gpus-per-worker asks for 2: the"
                + " others would be reserved and idle.", e.speaking(Vocabulary.NOTEBOOK).what());
    }

    @Test
    void flavorComesFromTheSettingOrTheLibtorchFolder() {
        assertEquals("cpu", GpuAssignment.flavor(null,
                "/home/u/.djl.ai/pytorch/2.7.1-20250812-cpu-linux-x86_64"));
        assertEquals("cu128", GpuAssignment.flavor(null,
                "/home/u/.djl.ai/pytorch/2.7.1-cu128-linux-x86_64"));
        assertEquals("cu124-precxx11", GpuAssignment.flavor(null,
                "/cache/pytorch/2.5.1-cu124-precxx11-linux-x86_64"));
        assertEquals("cu121", GpuAssignment.flavor(" CU121 ", "/opt/libtorch/lib"));
        assertNull(GpuAssignment.flavor(null, "/opt/libtorch/lib"));
        assertEquals(12080, GpuAssignment.buildCuda("cu128"));
        assertEquals(11080, GpuAssignment.buildCuda("cu118"));
        assertEquals(12040, GpuAssignment.buildCuda("cu124-precxx11"));
        assertEquals(0, GpuAssignment.buildCuda("cpu"));
    }
}

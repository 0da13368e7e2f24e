package dev.dml.ray.train.device;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** Which DJL settings a worker gets: the node's CUDA libtorch for a GPU job only. */
class CudaNativesTest {

    /** What clusters/node/setup.sh --gpu records on a GPU node. */
    private static final Map<String, String> GPU_NODE = Map.of(
            "DML_PYTORCH_LIBRARY_PATH", "/opt/dml/libtorch/2.7.1-cu128",
            "DML_PYTORCH_VERSION", "2.7.1", "DML_PYTORCH_FLAVOR", "cu128", "PATH", "/usr/bin");

    @Test
    void aGpuJobOnAGpuNodeGetsTheNodesCudaLibtorch() {
        assertEquals(Map.of("PYTORCH_LIBRARY_PATH", "/opt/dml/libtorch/2.7.1-cu128",
                "PYTORCH_VERSION", "2.7.1", "PYTORCH_FLAVOR", "cu128"),
                CudaNatives.settings(1, GPU_NODE, new Properties()));
        assertEquals(3, CudaNatives.settings(0.5, GPU_NODE, new Properties()).size());
    }

    @Test
    void aCpuJobKeepsTheCpuBuildEvenOnAGpuNode() {
        assertEquals(Map.of(), CudaNatives.settings(0, GPU_NODE, new Properties()));
    }

    @Test
    void whatTheJobOrTheNodeSetsUnderDjlsNamesWins() {
        Properties job = new Properties();
        job.setProperty("PYTORCH_FLAVOR", "cu124"); // -DPYTORCH_FLAVOR=cu124 in the job
        assertEquals(Map.of(), CudaNatives.settings(1, GPU_NODE, job));
        Map<String, String> node = new java.util.HashMap<>(GPU_NODE);
        node.put("PYTORCH_LIBRARY_PATH", "/usr/local/libtorch/lib");
        assertEquals(Map.of(), CudaNatives.settings(1, node, new Properties()));
    }

    @Test
    void aCpuNodeHasNothingToGive() {
        assertEquals(Map.of(), CudaNatives.settings(1, Map.of("PATH", "/usr/bin"),
                new Properties()));
    }
}

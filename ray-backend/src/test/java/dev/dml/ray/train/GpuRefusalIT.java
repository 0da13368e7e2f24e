package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.ray.Dml;
import dev.dml.ray.cluster.ClusterSpec;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.ProcessChecks;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A cluster that offers a GPU (Ray told so with {@code --num-gpus 1}) to workers whose PyTorch
 * engine is DJL's CPU build, as in CI: {@code --gpus-per-worker 1} must refuse before any step,
 * naming the case, and leave no worker behind. With the CPU natives every CI machine has, this
 * is the case that can be made without a GPU.
 */
@Tag("cluster")
class GpuRefusalIT {

    private static RayCluster cluster;
    private static DriverProcess driver;

    @BeforeAll
    static void open() {
        cluster = RayCluster.open(ClusterSpec.builder().optNumCpus(2).optNumGpus(1).build());
        driver = cluster.openDriver();
    }

    @AfterAll
    static void close() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aCpuEngineRefusesTheGpuRayAssignedBeforeAnyStep() throws Exception {
        TrainIT.Recorder rec = new TrainIT.Recorder();
        TrainSpec spec = TrainSpec.builder().setTable(SyntheticFraud.generate(2_000, 1))
                .setColumns(SyntheticFraud.selection()).setModel(ModelSpec.Family.MLP, 16)
                .optWorkers(1).optCpusPerWorker(1).optGpusPerWorker(1).optName("gpu")
                .addListener(rec).build();
        DmlException e = assertThrows(DmlException.class,
                () -> Dml.start(spec, driver).await(Duration.ofMinutes(2)));
        // the worker's line, behind the rank, pid and host every worker failure carries
        assertTrue(e.what().startsWith("Rank 0 (pid "), e.what());
        assertTrue(e.what().contains(" failed in selectDevice: No CUDA in the workers' engine:"
                + " PyTorch 2.7.1 (DJL flavor cpu) on "), e.what());
        assertTrue(e.what().endsWith(" cannot use the GPU Ray assigned."), e.what());
        assertEquals("Give the workers DJL's CUDA build of PyTorch: PYTORCH_FLAVOR (e.g. cu128),"
                + " or PYTORCH_LIBRARY_PATH and PYTORCH_VERSION for an installed libtorch"
                + " (docs/gpu.md), or set optGpusPerWorker(0) to train on CPUs.", e.hint());
        assertTrue(rec.steps.isEmpty(), "a step ran: " + rec.steps);
        List<Long> pids = rec.workers.stream().map(w -> w.pid()).toList();
        assertEquals(1, pids.size(), rec.workers.toString());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (System.nanoTime() < deadline && pids.stream().anyMatch(ProcessChecks::alive)) {
            Thread.sleep(100);
        }
        assertFalse(pids.stream().anyMatch(ProcessChecks::alive), "a worker outlived the job");
        assertTrue(driver.isAlive());
    }
}

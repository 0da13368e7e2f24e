package dev.dml.ray.train.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.ProcessSample;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Parsing {@code nvidia-smi}'s GPU query and sampling a worker's GPU from it. The inputs are in
 * {@code src/test/resources/nvidia-smi} (its README says where their format comes from).
 */
class NvidiaSmiTest {

    private static String resource(String name) {
        try (InputStream in = NvidiaSmiTest.class.getResourceAsStream("/nvidia-smi/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void oneGpu() {
        List<NvidiaSmi.Gpu> gpus = NvidiaSmi.parse(resource("one-h100.csv"));
        assertEquals(List.of(new NvidiaSmi.Gpu(0, "GPU-8d0f4b8e-2c1a-4f6e-9b7d-3e5a1c2b4d6f",
                87, 20431L << 20, 81559L << 20)), gpus);
    }

    @Test
    void aWorkerFindsItsGpuByRaysId() {
        List<NvidiaSmi.Gpu> gpus = NvidiaSmi.parse(resource("four-a10g.csv"));
        assertEquals(4, gpus.size());
        NvidiaSmi.Gpu g = NvidiaSmi.find(gpus, 1);
        assertEquals(100, g.utilization());
        assertEquals(21876L << 20, g.memoryUsedBytes());
        assertNull(NvidiaSmi.find(gpus, 4));
    }

    @Test
    void unsupportedFieldsAndErrorsAreNotNumbers() {
        NvidiaSmi.Gpu g = NvidiaSmi.parse(resource("fields-not-available.csv")).get(0);
        assertTrue(Double.isNaN(g.utilization()));
        assertEquals(-1, g.memoryUsedBytes());
        assertEquals(List.of(), NvidiaSmi.parse(resource("no-driver.txt")));
        assertEquals(List.of(), NvidiaSmi.parse(""));
    }

    @Test
    void theWorkersSamplesCarryItsGpuAndACpuWorkersNone() {
        try (GpuSampler s = new GpuSampler(2, () -> resource("four-a10g.csv"), null)) {
            assertNull(s.latest());
            s.sampleOnce();
            ProcessSample p = new ProcessSampler(s::latest).sample();
            assertTrue(p.hasGpu());
            assertEquals(42, p.gpuPercent());
            assertEquals(1210L << 20, p.gpuMemoryBytes());
        }
        ProcessSample cpu = new ProcessSampler().sample();
        assertFalse(cpu.hasGpu());
        assertTrue(Double.isNaN(cpu.gpuPercent()));
    }

    @Test
    void aFailedQueryLeavesNoStaleSample() {
        String[] out = {resource("one-h100.csv")};
        try (GpuSampler s = new GpuSampler(0, () -> out[0], null)) {
            assertTrue(s.sampleOnce());
            assertEquals(87, s.latest().utilization());
            out[0] = null; // nvidia-smi failed or ran past its timeout
            assertFalse(s.sampleOnce());
            assertNull(s.latest());
            out[0] = resource("no-driver.txt");
            assertFalse(s.sampleOnce());
            assertNull(s.latest());
            assertEquals(3, s.queries());
        }
    }

    @Test
    void aMissingCommandReadsAsNoOutput() {
        assertNull(GpuSampler.run(List.of("dml-no-such-command-" + System.nanoTime()),
                GpuSampler.TIMEOUT));
        assertEquals("hi\n", GpuSampler.run(List.of("echo", "hi"), GpuSampler.TIMEOUT));
        assertNull(GpuSampler.run(List.of("sleep", "5"), java.time.Duration.ofMillis(100)));
    }

    @Test
    void theBackgroundThreadSamplesWithoutBeingAsked() throws InterruptedException {
        try (GpuSampler s = new GpuSampler(0, () -> resource("one-h100.csv"),
                java.time.Duration.ofMillis(10))) {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (s.latest() == null && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(0, s.latest().index());
            assertTrue(s.queries() >= 1);
        }
    }
}

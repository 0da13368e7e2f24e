package dev.dml.ray.train.device;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples one GPU's utilisation and memory through {@code nvidia-smi} ({@link NvidiaSmi}) on a
 * background thread, every {@link #PERIOD}, each query cut off after {@link #TIMEOUT}: a step
 * only reads the latest sample and never waits for the query. Started by a worker that trains
 * on a GPU; owns its thread, which {@link #close} ends. Public only for bench P13, which
 * measures what sampling costs a step ({@link #PERIOD}, {@link #start(long, Duration)},
 * {@link #sampleOnce}, {@link #queries}).
 */
public final class GpuSampler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GpuSampler.class);
    /** How often a worker samples its GPU. */
    public static final Duration PERIOD = Duration.ofSeconds(1);
    static final Duration TIMEOUT = Duration.ofSeconds(5);

    private final long index;
    private final Supplier<String> query;
    private final ScheduledExecutorService thread;
    private final AtomicLong queries = new AtomicLong();
    private volatile NvidiaSmi.Gpu latest;

    /**
     * @param index the GPU's physical index (Ray's GPU id)
     * @param query runs the query and returns its output, or null when it failed
     * @param every the period; null to sample only on {@link #sampleOnce} (tests)
     */
    GpuSampler(long index, Supplier<String> query, Duration every) {
        this.index = index;
        this.query = query;
        if (every == null) {
            this.thread = null;
            return;
        }
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "dml-gpu-sampler");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::sampleOnce, 0, every.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /**
     * Starts sampling a GPU with {@code nvidia-smi}.
     *
     * @param index the GPU's physical index
     * @return the sampler, owned by the caller
     */
    static GpuSampler start(long index) {
        return start(index, PERIOD);
    }

    /**
     * Starts sampling a GPU with {@code nvidia-smi}, the first {@code nvidia-smi} on this JVM's
     * {@code PATH}, at another period than a worker's ({@link #PERIOD}).
     *
     * @param index the GPU's physical index
     * @param every the period; null for no thread, to sample only on {@link #sampleOnce}
     * @return the sampler, owned by the caller
     */
    public static GpuSampler start(long index, Duration every) {
        return new GpuSampler(index, () -> run(NvidiaSmi.COMMAND, TIMEOUT), every);
    }

    /** Returns the latest sample, or null before the first or where the query fails. */
    NvidiaSmi.Gpu latest() {
        return latest;
    }

    /**
     * Queries once and keeps the GPU's line (null when the query failed or lacks it).
     *
     * @return whether the query gave the GPU's line
     */
    public boolean sampleOnce() {
        queries.incrementAndGet();
        NvidiaSmi.Gpu gpu = null;
        try {
            String out = query.get();
            gpu = out == null ? null : NvidiaSmi.find(NvidiaSmi.parse(out), index);
        } catch (RuntimeException e) {
            LOG.debug("GPU sample failed: {}", e.toString()); // a sampler never fails the step
        }
        latest = gpu;
        return gpu != null;
    }

    /**
     * Returns how many queries have started, on the thread and through {@link #sampleOnce}.
     *
     * @return the count
     */
    public long queries() {
        return queries.get();
    }

    /** Runs a command; its output, or null when it failed, ran past the timeout or is absent. */
    static String run(List<String> command, Duration timeout) {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            LOG.debug("{} cannot run: {}", command.get(0), e.toString());
            return null;
        }
        try {
            // the output (a line per GPU) fits the pipe, so waiting first cannot block it
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return null;
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.exitValue() == 0 ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @Override
    public void close() {
        if (thread != null) {
            thread.shutdownNow();
        }
    }
}

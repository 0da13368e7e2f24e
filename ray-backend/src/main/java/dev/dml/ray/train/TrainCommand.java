package dev.dml.ray.train;

import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverTask;
import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.WorkerInfo;
import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import io.ray.api.Ray;
import io.ray.api.runtimecontext.NodeInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The training loop of the driver: opens the worker group, feeds the shards, asks every rank to
 * run a few steps at a time, and forwards the ranks' reports as events. Built in the kernel from
 * a {@link TrainSpec} (the shards are encoded there), run in the driver.
 */
final class TrainCommand implements DriverTask<TrainResult> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(TrainCommand.class);

    final String key;
    private final ArrayList<byte[]> shards;
    private final byte[] validation;
    private final WorkerConfig config;
    private final ColumnSelection columns;
    private final int epochs;
    private final int reportEvery;
    private final double cpus;
    private final double gpus;
    private final ArrayList<String> jvmOptions;
    private final boolean resume;
    private final Duration timeout;

    private TrainCommand(String key, List<byte[]> shards, byte[] validation, WorkerConfig config,
            ColumnSelection columns, int epochs, int reportEvery, double cpus, double gpus,
            List<String> jvmOptions, boolean resume, Duration timeout) {
        this.key = key;
        this.shards = new ArrayList<>(shards);
        this.validation = validation;
        this.config = config;
        this.columns = columns;
        this.epochs = epochs;
        this.reportEvery = reportEvery;
        this.cpus = cpus;
        this.gpus = gpus;
        this.jvmOptions = new ArrayList<>(jvmOptions);
        this.resume = resume;
        this.timeout = timeout;
    }

    /** Encodes a spec's shards (in the calling JVM, the kernel) into a command. */
    static TrainCommand of(TrainSpec spec, String jobId, Duration timeout) {
        List<byte[]> shards = ArrowShards.splitByRows(spec.trainTable(), spec.columns(),
                spec.workers());
        byte[] val = spec.validationTable()
                .map(t -> ArrowShards.encode(t, spec.columns())).orElse(null);
        WorkerConfig cfg = new WorkerConfig(jobId, spec.model(), spec.optimizer(),
                spec.batchSize(), spec.stepsPerEpoch(),
                spec.checkpointDir().map(Path::toString).orElse(null), spec.checkpointEvery());
        // 32 MB G1 regions: a step's flat gradients and ring chunks (up to 16 MB, 4M parameters)
        // are then young objects, not humongous ones that each start a concurrent GC cycle.
        List<String> opts = new ArrayList<>(List.of("-Dai.djl.pytorch.num_threads=1",
                "-Dai.djl.offline=true", "-XX:G1HeapRegionSize=32m"));
        opts.addAll(spec.workerJvmOptions());
        return new TrainCommand("dml-train/" + jobId, shards, val, cfg, spec.columns(),
                spec.epochs(), spec.reportEvery(), spec.cpusPerWorker(), spec.gpusPerWorker(),
                opts, spec.resume(), timeout);
    }

    @Override
    public TrainResult run(DriverContext context) {
        long t0 = System.nanoTime();
        int workers = shards.size();
        checkResources(workers, cpus, gpus);
        JobControl control = context.register(key, new JobControl());
        ActorGroup<TrainWorker> group = null;
        try {
            ActorGroup.Builder<TrainWorker> b = ActorGroup.builder(TrainWorker::new)
                    .setSize(workers).optCpusPerActor(cpus).optGpusPerActor(gpus)
                    .optTimeout(timeout);
            jvmOptions.forEach(b::addJvmOption);
            group = b.open();
            control.attach(group);
            List<WorkerInfo> who = group.workers();
            context.emit(new JobStarted(who));
            group.callEach(TrainWorker::load, shards);
            if (validation != null) {
                group.actor(0).task(TrainWorker::loadValidation, validation).remote().get();
            }
            group.callAll(TrainWorker::init, config);
            long start = 0;
            long resumedFrom = -1;
            if (resume) {
                Checkpoints.Checkpoint ck = Checkpoints.latest(Path.of(config.checkpointDir));
                if (ck == null) {
                    LOG.info("{}: no checkpoint in {}; starting afresh", key,
                            config.checkpointDir);
                } else {
                    if (ck.stepsPerEpoch() != config.stepsPerEpoch) {
                        throw new DmlException("Checkpoint " + ck.file() + " was written with "
                                + ck.stepsPerEpoch() + " steps per epoch; this job has "
                                + config.stepsPerEpoch + ".",
                                "Resume with the same rows, workers and batch size, or use a"
                                        + " new checkpoint folder.");
                    }
                    group.callAll(TrainWorker::restore, ck.state());
                    start = ck.step();
                    resumedFrom = ck.step();
                }
            }
            return loop(context, control, group, who, start, resumedFrom, t0);
        } catch (RuntimeException e) {
            if (control.killed()) {
                throw new DmlException("Training job " + config.job + " was stopped; its"
                        + " workers were killed.", "Start it again; pass optResume(true) to"
                        + " continue from its last checkpoint.", e);
            }
            throw e;
        } finally {
            if (group != null && !control.killed()) {
                try {
                    group.callAll(TrainWorker::release);
                } catch (RuntimeException ignored) {
                    // the workers are being killed anyway
                }
            }
            context.release(key);
        }
    }

    private TrainResult loop(DriverContext context, JobControl control,
            ActorGroup<TrainWorker> group, List<WorkerInfo> who, long start, long resumedFrom,
            long t0) {
        int spe = config.stepsPerEpoch;
        long total = (long) epochs * spe;
        int workers = who.size();
        List<StepMetrics> steps = new ArrayList<>();
        List<EpochMetrics> epochList = new ArrayList<>();
        long gs = start;
        long epochStart = System.nanoTime();
        double epochLoss = 0;
        int epochSteps = 0;
        boolean stopped = false;
        while (gs < total) {
            if (control.stopRequested()) {
                stopped = true;
                break;
            }
            int epoch = (int) (gs / spe);
            int inEpoch = (int) (gs % spe);
            int count = Math.min(reportEvery, spe - inEpoch);
            long c0 = System.nanoTime();
            List<ChunkReport> reps = group.callAll(TrainWorker::trainSteps,
                    new StepRange(epoch, inEpoch, count, gs));
            double chunkSeconds = (System.nanoTime() - c0) / 1e9;
            long h = reps.get(0).parameterHash;
            for (int r = 1; r < workers; r++) {
                if (reps.get(r).parameterHash != h) {
                    throw new DmlException("The replicas diverged at step " + (gs + count)
                            + ": rank " + r + " (" + who.get(r) + ") has other parameters than"
                            + " rank 0.", "Report this as a bug in dml, with the job's spec.");
                }
            }
            double[] cpu = new double[workers];
            long[] heap = new long[workers];
            long[] rss = new long[workers];
            for (int r = 0; r < workers; r++) {
                cpu[r] = reps.get(r).cpuPercent;
                heap[r] = reps.get(r).heapBytes;
                rss[r] = reps.get(r).rssBytes;
            }
            long chunkNanos = 0;
            for (int i = 0; i < count; i++) {
                long maxStep = 0;
                for (ChunkReport rep : reps) {
                    maxStep = Math.max(maxStep, rep.computeNanos[i] + rep.commNanos[i]);
                }
                chunkNanos += maxStep;
            }
            for (int i = 0; i < count; i++) {
                float loss = 0;
                long compute = 0;
                long comm = 0;
                long bytes = 0;
                long reportedAt = 0;
                for (ChunkReport rep : reps) {
                    reportedAt = Math.max(reportedAt, rep.reportedAtMillis);
                    loss += rep.losses[i];
                    compute = Math.max(compute, rep.computeNanos[i]);
                    comm = Math.max(comm, rep.commNanos[i]);
                    bytes += rep.bytesSent[i];
                }
                loss /= workers;
                int examples = config.batchSize * workers;
                double stepSeconds = (compute + comm) / 1e9;
                StepMetrics m = new StepMetrics(epoch, gs + i + 1, loss, examples,
                        stepSeconds > 0 ? examples / stepSeconds : 0, compute / 1e6, comm / 1e6,
                        bytes, cpu, heap, rss, reportedAt);
                steps.add(m);
                context.emit(m);
                epochLoss += loss;
                epochSteps++;
            }
            LOG.debug("{}: {} steps in {} s ({} s in workers)", key, count, chunkSeconds,
                    chunkNanos / 1e9);
            gs += count;
            if (gs % spe == 0) {
                Evaluation eval = validation == null ? null
                        : group.actor(0).task(TrainWorker::evaluate).remote().get();
                double seconds = (System.nanoTime() - epochStart) / 1e9;
                EpochMetrics em = new EpochMetrics(epoch, gs, (float) (epochLoss / epochSteps),
                        seconds, (double) epochSteps * config.batchSize * workers / seconds,
                        eval);
                epochList.add(em);
                context.emit(em);
                epochStart = System.nanoTime();
                epochLoss = 0;
                epochSteps = 0;
            }
        }
        float[] params = TrainWorker.floats(
                group.actor(0).task(TrainWorker::parameterBytes).remote().get());
        return new TrainResult(config.job, config.model, config.optimizer, columns, params,
                steps, epochList, who, gs, resumedFrom, stopped,
                (System.nanoTime() - t0) / 1e9);
    }

    /** Fails fast when no node set can hold the workers: Ray would wait without end. */
    static void checkResources(int workers, double cpus, double gpus) {
        if (Ray.getRuntimeContext().isLocalMode()) {
            return;
        }
        List<NodeInfo> nodes;
        try {
            nodes = Ray.getRuntimeContext().getAllNodeInfo();
        } catch (RuntimeException e) {
            LOG.warn("Cannot read the cluster's resources; not checking them: {}", e.toString());
            return;
        }
        double cpuTotal = 0;
        double gpuTotal = 0;
        int cpuSlots = 0;
        int gpuSlots = 0;
        for (NodeInfo n : nodes) {
            if (!n.isAlive) {
                continue;
            }
            double c = n.resources.getOrDefault("CPU", 0.0);
            double g = n.resources.getOrDefault("GPU", 0.0);
            cpuTotal += c;
            gpuTotal += g;
            cpuSlots += cpus > 0 ? (int) Math.floor(c / cpus + 1e-9) : workers;
            gpuSlots += gpus > 0 ? (int) Math.floor(g / gpus + 1e-9) : workers;
        }
        if (gpus > 0 && gpuSlots < workers) {
            throw new DmlException("The job asks for " + workers + " workers with " + gpus
                    + " GPU each, but the cluster has " + fmt(gpuTotal) + " GPU in all.",
                    "Lower optGpusPerWorker or optWorkers, or add GPU nodes to the cluster.");
        }
        if (cpus > 0 && cpuSlots < workers) {
            throw new DmlException("The job asks for " + workers + " workers with " + cpus
                    + " CPU each, but the cluster has " + fmt(cpuTotal) + " CPU in all.",
                    "Lower optCpusPerWorker (0 lets workers share CPUs) or optWorkers, or add"
                            + " nodes.");
        }
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }

    ModelSpec model() {
        return config.model;
    }

    OptimizerSpec optimizer() {
        return config.optimizer;
    }
}

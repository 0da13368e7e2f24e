package dev.dml.ray.train.runner;

import dev.dml.options.CheckpointFailure;
import dev.dml.options.CheckpointWriter;
import dev.dml.DmlException;
import dev.dml.cost.Limits;
import dev.dml.events.JobNotice;
import dev.dml.events.JobStarted;
import dev.dml.events.Recovery;
import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.cluster.ClusterNodes;
import dev.dml.ray.cluster.ClusterPricing;
import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.cluster.DriverTask;
import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.device.GpuAssignment;
import dev.dml.ray.train.recovery.Checkpoints;
import dev.dml.ray.train.recovery.ClusterResources;
import dev.dml.ray.train.recovery.JobPlacement;
import dev.dml.ray.train.recovery.WorkerRoom;
import dev.dml.ray.train.settings.SyncResolution;
import dev.dml.ray.train.worker.WorkerConfig;
import dev.dml.ray.train.worker.Evaluation;
import dev.dml.ray.train.worker.TrainWorker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one lifecycle of every training job, in the driver, whatever its strategy: check the
 * cluster's resources, start the workers, load their shards, initialise (or restore from a
 * checkpoint), run the steps, validate after each epoch, report, and release. The strategy's
 * {@link StrategyWorkers} says how workers run steps; {@link DriverListener}s, which hear the job's
 * events as the kernel does ({@link JobEvents}), keep its history, count its cost, write
 * checkpoints, check the replicas and stop it early. Built in the kernel from a {@link
 * TrainSpec} (the shards are encoded there), run in the driver.
 */
public final class JobRunner implements DriverTask<TrainResult> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(JobRunner.class);
    /** How long Ray may take to place the workers' bundles. */
    private static final Duration PLACEMENT_TIMEOUT = Duration.ofSeconds(120);
    /** How often an elastic job asks the cluster how many workers it could hold. */
    private static final Duration ROOM_READS = Duration.ofSeconds(2);

    public final String key;
    private final String job;
    private final String name;
    private final ArrayList<byte[]> shards;
    private final byte[] validation;
    /** The job's options as the spec resolved them; read where each is needed. */
    private final OptionValues options;
    private final WorkerConfig config;
    private final Strategy strategy;
    private final ColumnSelection columns;
    private final int stepsPerEpoch;
    private final int reportEvery;
    private final ArrayList<String> jvmOptions;
    private final Duration timeout;
    private final int minWorkers;
    /** How many workers the cluster could hold; tests set their own, in Ray's LOCAL mode. */
    transient WorkerRoom room;
    /**
     * Tests' own worker class in LOCAL mode (a {@code RayFunc0<TrainWorker>}); null: {@link
     * TrainWorker}. Typed Object because the kernel JVM, which reflects this class's fields when
     * it serializes a runner, has no Ray API on its class path.
     */
    transient Object worker;
    private final ArrayList<String> notices;

    private JobRunner(TrainSpec spec, String job, List<byte[]> shards, byte[] validation,
            List<String> jvmOptions, Duration timeout) {
        this.key = "dml-train/" + job;
        this.job = job;
        this.name = spec.name();
        this.shards = new ArrayList<>(shards);
        this.validation = validation;
        this.options = spec.options();
        int m = spec.strategy() instanceof Strategy.Staged s ? s.microbatches() : 1;
        this.config = new WorkerConfig(job, spec.model(), spec.optimizer(), options, m,
                shards.size(), spec.stepsPerEpoch());
        this.strategy = spec.strategy();
        this.columns = spec.columns();
        this.stepsPerEpoch = spec.stepsPerEpoch();
        this.reportEvery = spec.reportEvery();
        this.jvmOptions = new ArrayList<>(jvmOptions);
        this.timeout = timeout;
        this.minWorkers = spec.minWorkers();
        this.notices = new ArrayList<>(spec.notices());
    }

    /** Encodes a spec's shards (in the calling JVM, the kernel) into a runner. */
    public static JobRunner of(TrainSpec spec, String job, Duration timeout) {
        List<byte[]> encoded = ShardPayloads.of(spec);
        byte[] val = spec.validationTable()
                .map(t -> ArrowShards.encode(t, spec.columns())).orElse(null);
        // 32 MB G1 regions: a step's flat gradients and ring chunks (up to 16 MB, 4M parameters)
        // are then young objects, not humongous ones that each start a concurrent GC cycle.
        List<String> opts = new ArrayList<>(List.of("-Dai.djl.pytorch.num_threads=1",
                "-Dai.djl.offline=true", "-XX:G1HeapRegionSize=32m"));
        opts.addAll(spec.workerJvmOptions());
        return new JobRunner(spec, job, encoded, val, opts, timeout);
    }

    /** The shards it sends: Arrow IPC rows, or {@link dev.dml.ray.data.FileShard} references. */
    List<byte[]> shards() {
        return shards;
    }

    @Override
    public TrainResult run(DriverContext context) {
        long t0 = System.nanoTime();
        double cpus = options.get(TrainOptions.CPUS_PER_WORKER);
        double gpus = options.get(TrainOptions.GPUS_PER_WORKER);
        Integer servers = options.get(TrainOptions.PS);
        StrategyWorkers plan = strategy instanceof Strategy.Staged s
                ? new StagedWorkers(s, timeout)
                : new DataParallelWorkers(minWorkers, shards.size(),
                        room != null ? room : WorkerRoom.readEvery(
                                () -> ClusterResources.slots(cpus, gpus), ROOM_READS))
                        .withServers(servers == null ? 0 : servers,
                                SyncResolution.staleness(options.get(TrainOptions.SYNC)));
        GpuAssignment.requireAtMostOne(gpus);
        ClusterResources.check(plan.fewestActors(), cpus, gpus);
        JobEvents events = new JobEvents(context);
        JobControl control = events.register(key, new JobControl());
        boolean started = false;
        CheckpointStore store = null;
        try {
            JobPlacement where = JobPlacement.open(job, options.get(TrainOptions.PLACEMENT),
                    plan.fewestActors(), plan.actors(), cpus, gpus, PLACEMENT_TIMEOUT);
            control.attach(where);
            List<WorkerInfo> who = plan.open(new ActorSettings(cpus, gpus, jvmOptions, timeout,
                    where, options.get(TrainOptions.TRANSPORT), ActorSettings.worker(worker)),
                    control);
            started = true;
            events.add(new DivergenceCheck());
            // prices the workers' nodes as it hears them start
            CostListener cost = events.add(new CostListener(limits(), w -> JobRate.of(w,
                    ClusterPricing.of(context), ClusterNodes.labels()), events::emit,
                    System::nanoTime));
            events.emit(new JobStarted(who));
            if (gpus > 0) { // each worker's device, or its refusal, before any data is sent
                plan.stages().forEach(g -> g.callAll(TrainWorker::selectDevice, gpus));
            }
            notices.forEach(n -> events.emit(new JobNotice(0, n)));
            plan.load(shards, validation);
            plan.init(config);
            Path dir = checkpointDir();
            store = dir == null ? null : CheckpointStore.open(dir, name, describe(plan),
                    options.get(TrainOptions.CHECKPOINT_STORE) == CheckpointWriter.SHARED);
            if (store != null) {
                store.checkShared(plan);
                int every = options.get(TrainOptions.CHECKPOINT_EVERY);
                if (every > 0) {
                    events.add(new CheckpointListener(store, every, stepsPerEpoch,
                            options.get(TrainOptions.CHECKPOINT_FAILURE)
                                    == CheckpointFailure.STOP, events::emit));
                }
            }
            long start = options.get(TrainOptions.RESUME)
                    ? Math.max(0, restore(plan, store, events, true)) : 0;
            return loop(events, control, plan, who, start, t0, store, cost);
        } catch (RuntimeException e) {
            if (control.killed()) {
                throw new DmlException("Training job " + job + " was stopped; its workers were"
                        + " killed.", "Start it again; with {checkpoint-dir}, {resume}"
                        + " continues from its last checkpoint.", e);
            }
            throw e;
        } finally {
            if (started && !control.killed()) {
                try {
                    plan.release();
                } catch (RuntimeException ignored) {
                    // the workers are being killed anyway
                }
            }
            context.release(key);
            if (store != null) {
                store.close();
            }
        }
    }

    /**
     * The model as checkpoints tell it apart: shape, objective, optimizer (and whether top-k
     * runs its momentum), stages and, with text features, their categories.
     */
    private String describe(StrategyWorkers plan) {
        var vocabulary = columns.vocabulary();
        return config.model.toString().replaceAll(", seed=-?\\d+", "") + ", "
                + config.optimizer.kind().name().toLowerCase(java.util.Locale.ROOT)
                // top-k's workers hold the momentum, and the model's optimizer keeps no state
                + (config.momentumCorrection() == null ? "" : " (momentum before top-k)") + ", "
                + plan.layout() + (vocabulary.isEmpty() ? "" : ", categories "
                        + CheckpointStore.fingerprint(vocabulary.toString()));
    }

    /**
     * Restores every stage from the job's newest checkpoint; returns its step, or -1 if none.
     * A {@code --resume} tells the cell what it found; a recovery says it in its own event.
     */
    private long restore(StrategyWorkers plan, CheckpointStore store, DriverContext context,
            boolean resuming) {
        Checkpoints.Checkpoint ck = store == null ? null : store.latest();
        if (ck == null) {
            LOG.info("{}: no checkpoint in {}", key, checkpointDir());
            if (resuming) {
                context.emit(new JobNotice(0, store.noneFound()));
            }
            return -1;
        }
        Checkpoints.Header h = ck.header();
        if (h.stepsPerEpoch() != stepsPerEpoch) {
            throw new DmlException("Checkpoint " + DmlException.literal(h.file())
                    + " was written with " + h.stepsPerEpoch() + " steps per epoch; this job"
                    + " has " + stepsPerEpoch + ".", "Resume with the same rows, {workers},"
                    + " {batch-size} and {accumulate}, or use a new {checkpoint-dir}.");
        }
        store.restore(plan, ck);
        LOG.info("{}: restored {} at step {}", key, h.file(), h.step());
        if (resuming) {
            context.emit(new JobNotice(h.step(), "{resume}: job '" + name + "' continues from"
                    + " its checkpoint of step " + h.step() + "."));
        }
        return h.step();
    }

    /** Where a recovery gets its state when no peer holds a snapshot. */
    private Recoveries.Fallback fallback(StrategyWorkers plan, CheckpointStore store,
            DriverContext context) {
        return new Recoveries.Fallback() {
            @Override
            public long fromCheckpoint() {
                return restore(plan, store, context, false);
            }

            @Override
            public String checkpointName() {
                return "the newest checkpoint in " + checkpointDir();
            }

            @Override
            public void fromStart() {
                plan.init(config);
            }
        };
    }

    private TrainResult loop(JobEvents events, JobControl control, StrategyWorkers plan,
            List<WorkerInfo> started, long start, long t0, CheckpointStore store,
            CostListener cost) {
        Recoveries recoveries = new Recoveries(key, options.get(TrainOptions.MAX_FAILURES),
                fallback(plan, store, events));
        long total = (long) options.get(TrainOptions.EPOCHS) * stepsPerEpoch;
        JobHistory history = events.add(new JobHistory(options.get(TrainOptions.BATCH_SIZE)
                * options.get(TrainOptions.ACCUMULATE) * plan.shards(), stepsPerEpoch));
        Integer patience = options.get(TrainOptions.EARLY_STOP);
        EarlyStopping early = patience == null ? null : events.add(new EarlyStopping(patience,
                history, () -> StageStates.parameters(plan.stages()), events::emit));
        List<WorkerInfo> who = started;
        long gs = start;
        boolean stopped = false;
        StepCalls calls = new StepCalls(plan, events.listeners(), stepsPerEpoch, reportEvery,
                total);
        while (gs < total && !events.finishedEarly()) {
            boolean stopping = control.stopRequested();
            String limit = stopping ? null : calls.stopReason(gs);
            if (!calls.inFlight()) { // a call sent ahead runs its steps first
                if (stopping) {
                    stopped = true;
                    break;
                }
                if (limit != null) {
                    stopOnLimit(limit, gs, plan, store, events);
                    stopped = true;
                    break;
                }
                Resize grown = plan.grow(control, gs, events::emit);
                if (grown != null) {
                    who = grown.workers();
                    events.emit(grown); // the new workers' nodes are paid from now on
                }
            }
            long resumeAt;
            try {
                StepCalls.Call call = calls.next(gs);
                if (!stopping && limit == null) {
                    calls.sendAfter(call);
                }
                StepChunk chunk = call.sent().await();
                if (chunk.steps().size() < call.range().count || !chunk.leaving().isEmpty()) {
                    calls.drop();
                }
                gs += chunk.steps().size();
                for (DriverListener l : events.listeners()) {
                    l.onSteps(plan, chunk, gs);
                }
                emitSteps(chunk, events);
                if (chunk.leaving().isEmpty()) {
                    if (gs % stepsPerEpoch == 0) {
                        Evaluation eval = validation == null ? null : plan.evaluate();
                        events.emit(history.endEpoch(call.range().epoch + 1, gs, eval));
                    }
                    continue;
                }
                resumeAt = recoveries.afterNotice(chunk.leaving(), gs, who, plan, control,
                        events);
            } catch (RuntimeException failure) {
                calls.drop(); // its workers skip it, or are gone
                resumeAt = recoveries.afterFailure(failure, gs, who, plan, control, events);
            }
            List<Recovery> done = recoveries.recoveries();
            who = done.get(done.size() - 1).workers();
            gs = resumeAt;
            calls.restart();
        }
        cost.end(gs);
        float[] last = StageStates.parameters(plan.stages());
        TrainResult r = new TrainResult(job, config.model, config.optimizer, columns,
                early == null ? last : early.kept(last), history.steps(), history.epochs(), who,
                gs, start > 0 ? start : -1, stopped, (System.nanoTime() - t0) / 1e9,
                recoveries.recoveries()).withEarlyStop(early == null ? 0 : early.stoppedAfter(),
                        early == null ? 0 : early.bestEpoch());
        String trend = r.lossTrend(); // said with the summary, as scikit-learn warns
        if (trend != null) {
            events.emit(new JobNotice(gs, trend));
        }
        return r;
    }

    /** Sends a call's steps, each with its learning rate, and a staged job's stage times. */
    private void emitSteps(StepChunk chunk, JobEvents events) {
        for (int i = 0; i < chunk.steps().size(); i++) {
            StepMetrics m = chunk.steps().get(i);
            events.emit(m.withLearningRate(config.optimizer.learningRateAt(m.step() - 1)));
            if (i < chunk.pipeline().size()) {
                events.emit(chunk.pipeline().get(i));
            }
        }
    }

    /** {@code --checkpoint-dir}, or null. */
    private Path checkpointDir() {
        String dir = options.get(TrainOptions.CHECKPOINT_DIR);
        return dir == null ? null : Path.of(dir);
    }

    /** {@code --budget} and {@code --deadline}; NaN where not given. */
    private Limits limits() {
        Double budget = options.get(TrainOptions.BUDGET);
        Double deadline = options.get(TrainOptions.DEADLINE);
        return new Limits(budget == null ? Double.NaN : budget,
                deadline == null ? Double.NaN : deadline);
    }

    /** A budget or deadline reached: checkpoint (unless one of this step exists) and say so. */
    private void stopOnLimit(String why, long gs, StrategyWorkers plan, CheckpointStore store,
            DriverContext context) {
        String then = " Add {checkpoint-dir} to be able to continue with {resume}.";
        if (store != null) {
            try {
                int every = options.get(TrainOptions.CHECKPOINT_EVERY);
                if (every <= 0 || gs % every != 0) {
                    store.write(plan, gs, stepsPerEpoch);
                }
                then = " Checkpoint of step " + gs + " written: {resume} with a new {budget} or"
                        + " {deadline} continues from there.";
            } catch (IOException | RuntimeException e) {
                LOG.warn("{}: the checkpoint at the stop failed", key, e);
                then = " Its checkpoint could not be written: " + DmlException.literal(
                        e.getMessage()) + ".";
            }
        }
        context.emit(new JobNotice(gs, why + " (step " + gs + ")." + then));
    }
}

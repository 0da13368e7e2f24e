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
import dev.dml.ray.pipeline.Partition;
import dev.dml.ray.pipeline.StageConfig;
import dev.dml.ray.pipeline.StageReport;
import dev.dml.ray.pipeline.StageWorker;
import io.ray.api.ActorHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The training loop of a staged job (model, pipeline or hybrid parallelism) in the driver: one
 * {@link ActorGroup} of {@link StageWorker}s per stage, one actor per replica, so that a stage's
 * group all-reduces its replicas' gradients. It splits the layers, runs the steps through {@link
 * PipelineStep}, and emits the usual {@link StepMetrics} and {@link EpochMetrics} plus a {@link
 * PipelineMetrics} per step. Built in the kernel from a {@link TrainSpec}, run in the driver.
 */
final class StagedCommand implements DriverTask<TrainResult> {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(StagedCommand.class);

    final String key;
    private final String job;
    private final ArrayList<byte[]> shards;
    private final StageConfig base;
    private final Strategy.Staged strategy;
    private final ModelSpec model;
    private final OptimizerSpec optimizer;
    private final ColumnSelection columns;
    private final int epochs;
    private final int stepsPerEpoch;
    private final int batchSize;
    private final double cpus;
    private final double gpus;
    private final ArrayList<String> jvmOptions;
    private final Duration timeout;

    private StagedCommand(TrainSpec spec, String jobId, List<byte[]> shards,
            List<String> jvmOptions, Duration timeout) {
        this.key = "dml-train/" + jobId;
        this.job = jobId;
        this.shards = new ArrayList<>(shards);
        this.strategy = (Strategy.Staged) spec.strategy();
        this.model = spec.model();
        this.optimizer = spec.optimizer();
        this.columns = spec.columns();
        this.epochs = spec.epochs();
        this.stepsPerEpoch = spec.stepsPerEpoch();
        this.batchSize = spec.batchSize();
        this.base = new StageConfig(jobId, model, optimizer, 0, 0, model.layerCount(),
                batchSize, strategy.microbatches());
        this.cpus = spec.cpusPerWorker();
        this.gpus = spec.gpusPerWorker();
        this.jvmOptions = new ArrayList<>(jvmOptions);
        this.timeout = timeout;
    }

    /** Encodes a spec's shards, one per replica (in the kernel) into a command. */
    static StagedCommand of(TrainSpec spec, String jobId, Duration timeout) {
        Strategy.Staged s = (Strategy.Staged) spec.strategy();
        List<byte[]> shards = ArrowShards.splitByRows(spec.trainTable(), spec.columns(),
                s.replicas());
        List<String> opts = new ArrayList<>(List.of("-Dai.djl.pytorch.num_threads=1",
                "-Dai.djl.offline=true"));
        opts.addAll(spec.workerJvmOptions());
        return new StagedCommand(spec, jobId, shards, opts, timeout);
    }

    @Override
    public TrainResult run(DriverContext context) {
        long t0 = System.nanoTime();
        int d = strategy.replicas();
        int k = strategy.stages();
        TrainCommand.checkResources(d * k, cpus, gpus);
        JobControl control = context.register(key, new JobControl());
        List<ActorGroup<StageWorker>> groups = new ArrayList<>();
        try {
            List<ActorGroup.Builder<StageWorker>> builders = new ArrayList<>();
            for (int s = 0; s < k; s++) {
                ActorGroup.Builder<StageWorker> b = ActorGroup.builder(StageWorker::new)
                        .setSize(d).optCpusPerActor(cpus).optGpusPerActor(gpus)
                        .optTimeout(timeout);
                jvmOptions.forEach(b::addJvmOption);
                builders.add(b);
            }
            for (ActorGroup<StageWorker> g : ActorGroup.openAll(builders)) {
                control.attach(g);
                groups.add(g);
            }
            List<WorkerInfo> who = new ArrayList<>();
            List<List<ActorHandle<StageWorker>>> byReplica = new ArrayList<>();
            for (int r = 0; r < d; r++) {
                List<ActorHandle<StageWorker>> stages = new ArrayList<>();
                for (int s = 0; s < k; s++) {
                    WorkerInfo w = groups.get(s).workers().get(r);
                    who.add(new WorkerInfo(r * k + s, d * k, w.pid(), w.host()));
                    stages.add(groups.get(s).actor(r));
                }
                byReplica.add(stages);
            }
            context.emit(new JobStarted(who));
            groups.get(0).callEach(StageWorker::load, shards);
            if (k > 1) {
                groups.get(k - 1).callEach(StageWorker::load, shards);
            }
            int[] split = split(groups.get(0));
            LOG.info("{}: {} with layers {} per stage", key, strategy, Arrays.toString(split));
            int from = 0;
            for (int s = 0; s < k; s++) {
                groups.get(s).callAll(StageWorker::init,
                        base.forStage(s, from, from + split[s]));
                from += split[s];
            }
            PipelineStep step = new PipelineStep(byReplica, strategy.schedule(),
                    strategy.microbatches(), timeout);
            return loop(context, control, step, groups, who, t0);
        } catch (RuntimeException e) {
            if (control.killed()) {
                throw new DmlException("Training job " + job + " was stopped; its workers were"
                        + " killed.", "Start it again.", e);
            }
            throw e;
        } finally {
            if (!control.killed()) {
                for (ActorGroup<StageWorker> g : groups) {
                    try {
                        g.callAll(StageWorker::release);
                    } catch (RuntimeException ignored) {
                        // the workers are being killed anyway
                    }
                }
            }
            context.release(key);
        }
    }

    /** The layers of each stage: explicit, or balanced on costs measured by one actor. */
    private int[] split(ActorGroup<StageWorker> first) {
        int k = strategy.stages();
        int[] given = strategy.layersPerStage().orElse(null);
        if (given != null) {
            return given;
        }
        if (k == 1) {
            return new int[] {model.layerCount()};
        }
        boolean byTime = strategy.balance() == Strategy.Balance.TIME;
        double[] costs = first.actor(0).task(StageWorker::layerCosts, base, byTime).remote()
                .get();
        LOG.info("{}: layer costs {} ({})", key, Arrays.toString(costs), strategy.balance());
        return Partition.balance(costs, k);
    }

    private TrainResult loop(DriverContext context, JobControl control, PipelineStep step,
            List<ActorGroup<StageWorker>> groups, List<WorkerInfo> who, long t0) {
        long total = (long) epochs * stepsPerEpoch;
        StagedMetrics metrics = new StagedMetrics(strategy, batchSize);
        List<StepMetrics> steps = new ArrayList<>();
        List<EpochMetrics> epochList = new ArrayList<>();
        long gs = 0;
        boolean stopped = false;
        while (gs < total) {
            if (control.stopRequested()) {
                stopped = true;
                break;
            }
            int epoch = (int) (gs / stepsPerEpoch);
            long c0 = System.nanoTime();
            List<List<StageReport>> reps = step.run((int) (gs % stepsPerEpoch), gs + 1);
            double wall = (System.nanoTime() - c0) / 1e9;
            gs++;
            StepMetrics m = metrics.step(epoch, gs, reps, wall, who);
            steps.add(m);
            context.emit(m);
            context.emit(metrics.pipeline(gs, reps, wall));
            if (gs % stepsPerEpoch == 0) {
                EpochMetrics em = metrics.epoch(epoch, gs);
                epochList.add(em);
                context.emit(em);
            }
        }
        float[] params = new float[0];
        for (ActorGroup<StageWorker> g : groups) {
            float[] part = TrainWorker.floats(
                    g.actor(0).task(StageWorker::parameterBytes).remote().get());
            float[] all = Arrays.copyOf(params, params.length + part.length);
            System.arraycopy(part, 0, all, params.length, part.length);
            params = all;
        }
        return new TrainResult(job, model, optimizer, columns, params, steps, epochList, who,
                gs, -1, stopped, (System.nanoTime() - t0) / 1e9);
    }
}

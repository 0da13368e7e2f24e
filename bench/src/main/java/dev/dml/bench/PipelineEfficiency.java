package dev.dml.bench;

import dev.dml.options.PipelineSchedule;
import dev.dml.events.PipelineMetrics;
import dev.dml.events.EpochMetrics;
import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.settings.Strategy;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainingListener;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;

/**
 * P8: a 4-stage GPipe pipeline with 8 micro-batches. Its throughput divided by the ideal {@code
 * (1 - (p-1)/(m+p-1)) * single-stage rate} (goal at least 0.8), and its measured bubble fraction
 * against the theoretical {@code (p-1)/(m+p-1)}.
 *
 * <p>The single-stage rate is the rate of the slowest stage working alone on a micro-batch: it
 * is measured in the same rounds by a model-parallel job on the same stages with the batch set
 * to the micro-batch size, where one stage works at a time (no bubble overlap, no contention).
 * A 2-stage pipeline and its single-stage rate are measured as context.
 */
final class PipelineEfficiency implements Benchmark {

    static final double GOAL = 0.8;
    static final int FEATURES = 512;
    static final int WIDTH = 512;
    static final int MICRO = 8;
    /** Batch 512, 6 steps per epoch, 3 epochs (the first is the warm-up). */
    static final JobSize JOB = new JobSize(512, 6, 3);
    static final Rounds ROUNDS = new Rounds(1, 3);

    @Override
    public BenchResult run(String command) throws Exception {
        Table table = table(JOB.rows());
        int micro = JOB.batch() / MICRO;
        Case p4 = new Case("pipeline_4x8", spec(table, JOB.batch(),
                Strategy.pipeline(4, MICRO, PipelineSchedule.GPIPE)), 4, "tcp");
        Case p4ray = new Case("pipeline_4x8_ray", p4.spec, 4, "ray");
        Case a4 = new Case("stages_alone_4", spec(table, micro, Strategy.model(4)), 4, "tcp");
        Case p2 = new Case("pipeline_2x8", spec(table, JOB.batch(),
                Strategy.pipeline(2, MICRO, PipelineSchedule.GPIPE)), 2, "tcp");
        Case a2 = new Case("stages_alone_2", spec(table, micro, Strategy.model(2)), 2, "tcp");
        double load0 = MlpJobs.loadAverage();
        try (RayCluster cluster = MlpJobs.openCluster();
                DriverProcess driver = cluster.openDriver()) {
            SideBySide sbs = new SideBySide(ROUNDS);
            for (Case c : new Case[] {p4, p4ray, a4, p2, a2}) {
                sbs.add(c.samples, round -> c.run(round, driver));
            }
            sbs.run();
        }
        double ratio4 = p4.medianRate() / p4.ideal(a4);
        double ratio2 = p2.medianRate() / p2.ideal(a2);
        double ratioRay = p4ray.medianRate() / p4.ideal(a4);
        System.out.printf("P8: 4 stages %.0f ex/s, ideal %.0f, ratio %.3f; bubble %.3f (theory"
                + " %.3f); 2 stages ratio %.3f; 4 stages through Ray %.0f ex/s%n", p4.medianRate(),
                p4.ideal(a4), ratio4, p4.bubble(), p4.theory(), ratio2, p4ray.medianRate());
        Map<String, Object> setup = new LinkedHashMap<>();
        setup.put("model", "MLP " + FEATURES + "-" + WIDTH + "x4-10 (5 layers of which 4 of"
                + " 262k parameters), SGD lr 0.01; split by parameter count: 4 stages"
                + " [1,1,1,2] layers, 2 stages [2,3]");
        setup.put("data", "synthetic: " + FEATURES + " Gaussian float columns, 10 classes, "
                + JOB.rows() + " rows");
        setup.put("pipeline", "batch " + JOB.batch() + ", " + MICRO + " micro-batches of " + micro
                + " rows, GPipe, " + JOB.steps() + " steps per epoch, " + JOB.epochs()
                + " epochs; the first epoch is the warm-up");
        setup.put("cluster", "embedded Ray head, optNumCpus(2), optCpusPerWorker(0) (the stage"
                + " actors share the 2 cores); one PyTorch thread per actor");
        setup.put("load_average_1min_at_start", load0);
        setup.put("load_average_1min_at_end", MlpJobs.loadAverage());
        Map<String, Object> cases = new LinkedHashMap<>();
        for (Case c : new Case[] {p4, p4ray, a4, p2, a2}) {
            cases.put(c.name, c.toJson());
        }
        return new BenchResult("P8", GOAL, command)
                .setRatio(ratio4)
                .put("ratio_is", "median 4-stage pipeline examples/s / ((1 - (p-1)/(m+p-1)) *"
                        + " single-stage rate), p=4, m=" + MICRO + "; single-stage rate ="
                        + " micro-batch rows / median slowest-stage busy time per micro-batch"
                        + " in stages_alone_4")
                .put("bubble_measured", TrialTimes.round(p4.bubble(), 4))
                .put("bubble_theoretical", TrialTimes.round(p4.theory(), 4))
                .put("bubble_is", "PipelineMetrics.bubbleFraction(): sum of stage idle time"
                        + " (step wall - busy) / (stages * step wall), median over the timed"
                        + " steps")
                .put("ratio_4_stages_hand_offs_through_ray", TrialTimes.round(ratioRay, 4))
                .put("direct_over_ray_4_stages", TrialTimes.round(p4.medianRate()
                        / p4ray.medianRate(), 4))
                .put("ratio_2_stages", TrialTimes.round(ratio2, 4))
                .put("bubble_2_stages_measured", TrialTimes.round(p2.bubble(), 4))
                .put("bubble_2_stages_theoretical", TrialTimes.round(p2.theory(), 4))
                .put("hand_offs", "every case over direct stage links (--transport tcp, the"
                        + " default), but pipeline_4x8_ray: driver-submitted tasks and object"
                        + " references (--transport ray), as before the links")
                .put("method", "one process, one cluster and driver; "
                        + ROUNDS.describe() + " of the five jobs (SideBySide); medians")
                .put("setup", setup)
                .put("cases", cases);
    }

    static Table table(int rows) {
        SplittableRandom rnd = new SplittableRandom(8);
        Table t = Table.create("p8");
        for (int j = 0; j < FEATURES; j++) {
            float[] v = new float[rows];
            for (int i = 0; i < rows; i++) {
                v[i] = (float) (rnd.nextDouble() * 2 - 1);
            }
            t.addColumns(FloatColumn.create("f" + j, v));
        }
        int[] y = new int[rows];
        for (int i = 0; i < rows; i++) {
            y[i] = rnd.nextInt(10);
        }
        return t.addColumns(IntColumn.create("label", y));
    }

    private static TrainSpec spec(Table table, int batch, Strategy strategy) {
        ModelSpec model = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(FEATURES)
                .setOutputs(10).addHidden(WIDTH).addHidden(WIDTH).addHidden(WIDTH)
                .addHidden(WIDTH).optSeed(3).build();
        return TrainSpec.builder().setTable(table)
                .setColumns(ColumnSelection.allNumericExcept(table, "label", LabelKind.CLASSES))
                .setModel(model).optOptimizer(OptimizerSpec.sgd(0.01f, 0f)).optEpochs(JOB.epochs())
                .optBatchSize(batch).optCpusPerWorker(0).optStrategy(strategy).optName("p8")
                .build();
    }

    /** One job and what it measured over the timed rounds. */
    private static final class Case extends JobCase implements TrainingListener {
        final int stages;
        final String transport;
        final List<PipelineMetrics> events = new CopyOnWriteArrayList<>();
        final List<Double> bubbles = new ArrayList<>();
        final List<Double> slowestBusy = new ArrayList<>();
        final List<Double> wall = new ArrayList<>();
        final double[] busySum;
        final double[] idleSum;
        long activationBytes;
        int timedSteps;

        Case(String name, TrainSpec spec, int stages, String transport) {
            // One pipeline: the whole batch crosses every stage, so no factor of workers.
            super(name, spec.strategy() + " over " + transport, spec,
                    (long) steadySteps(spec) * spec.batchSize());
            this.stages = stages;
            this.transport = transport;
            this.busySum = new double[stages];
            this.idleSum = new double[stages];
        }

        @Override
        public void onPipeline(PipelineMetrics m) {
            events.add(m);
        }

        double run(Round round, DriverProcess driver) {
            events.clear();
            TrainSpec s = TrainSpec.builder().setTable(spec.table()).setColumns(spec.columns())
                    .setModel(spec.model()).optOptimizer(spec.optimizer()).optEpochs(JOB.epochs())
                    .optBatchSize(spec.batchSize()).optCpusPerWorker(0)
                    .optStrategy(spec.strategy())
                    .opt(TrainOptions.TRANSPORT, TrainOptions.TRANSPORT.checkWord(transport))
                    .optName(name).addListener(this).build();
            TrainResult r = Dml.start(s, driver).await();
            double seconds = 0;
            for (EpochMetrics e : r.epochs().subList(1, JOB.epochs())) {
                seconds += e.seconds();
            }
            if (round.timed()) {
                for (PipelineMetrics m : events) {
                    if (m.step() <= spec.stepsPerEpoch()) {
                        continue; // the warm-up epoch
                    }
                    bubbles.add(m.bubbleFraction());
                    slowestBusy.add(m.stages().stream()
                            .mapToDouble(PipelineMetrics.StageTime::busyMillis).max().orElse(0));
                    wall.add(m.wallMillis());
                    for (int i = 0; i < stages; i++) {
                        busySum[i] += m.stages().get(i).busyMillis();
                        idleSum[i] += m.stages().get(i).idleMillis();
                    }
                    activationBytes = m.activationBytes();
                    timedSteps++;
                }
            }
            System.out.printf("  %-16s %.0f examples/s, last step %s%n", name,
                    examples / seconds, events.isEmpty() ? "-" : events.get(events.size() - 1));
            return seconds;
        }

        double bubble() {
            return MlpJobs.median(bubbles);
        }

        double theory() {
            return (stages - 1.0) / (MICRO + stages - 1.0);
        }

        /** The ideal rate of this pipeline, from the stages-alone case's slowest stage. */
        double ideal(Case alone) {
            double stageRate = alone.spec.batchSize() / (MlpJobs.median(alone.slowestBusy) / 1e3);
            return (1 - theory()) * stageRate;
        }

        Map<String, Object> toJson() {
            List<Double> rates = rates();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("strategy", spec.strategy().toString());
            m.put("transport", transport);
            m.put("batch", spec.batchSize());
            m.put("examples_per_s", MlpJobs.series("examples/s over the timed epochs", rates, 1));
            m.put("step_wall_ms", MlpJobs.series("driver's step wall time", wall, 2));
            m.put("slowest_stage_busy_ms", MlpJobs.series("busiest stage's forward + backward +"
                    + " update per step", slowestBusy, 2));
            m.put("bubble_fraction", MlpJobs.series("PipelineMetrics.bubbleFraction per step",
                    bubbles, 4));
            double[] busy = new double[stages];
            double[] idle = new double[stages];
            for (int i = 0; i < stages; i++) {
                busy[i] = TrialTimes.round(busySum[i] / Math.max(1, timedSteps), 2);
                idle[i] = TrialTimes.round(idleSum[i] / Math.max(1, timedSteps), 2);
            }
            m.put("mean_busy_ms_by_stage", busy);
            m.put("mean_idle_ms_by_stage", idle);
            m.put("activation_bytes_per_step", activationBytes);
            return m;
        }
    }
}

package dev.dml.ray.train.worker;

import dev.dml.Closeables;
import dev.dml.DmlException;
import dev.dml.ray.collective.CollectiveStats;
import dev.dml.ray.collective.CollectiveWorker;
import dev.dml.ray.collective.ReduceOp;
import dev.dml.ray.data.ShardArrays;
import dev.dml.ray.model.MicroBatchGraph;
import dev.dml.ray.model.ModelStage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A pipeline or model stage's steps on its {@link TrainWorker}: each micro-batch's forward and
 * backward, then the end of the step (the replicas' all-reduce and the optimizer step). The
 * driver either submits every pass as a task with the neighbouring stages' bytes, or links a
 * replica's stages ({@link #listen}, {@link #connect}) so that each stage runs its schedule
 * itself ({@link #run}), handing off over the direct links; the next step's forwards start
 * while later stages still end this one. A failure closes the links, so the other stages'
 * waits end too.
 */
final class StageStep implements StepStrategy {

    private final CollectiveWorker replicas;
    private final StageCounters step = new StageCounters();
    private final MicrobatchRows microbatchRows = new MicrobatchRows();
    private LinkedStage linked;
    /** This stage's schedule, as the driver sends it with each linked run. */
    private int[] ops;

    /** A stage whose replicas are {@code replicas}' group. */
    StageStep(CollectiveWorker replicas) {
        this.replicas = replicas;
    }

    /** Starts a step afresh: after init, a restore, or a step cut short by a failure. */
    void restart(ModelStage m) {
        step.begin(m);
    }

    /** Opens this stage's end of its replica's direct links, closing earlier ones. */
    String listen(long token) {
        closeLinks();
        linked = new LinkedStage(token);
        return linked.address();
    }

    /** Connects this stage to its neighbours, every stage of the replica listening. */
    void connect(int stage, List<String> endpoints, List<String> nodes, long token,
            Duration timeout) {
        linkedStage().connect(stage, endpoints, nodes, token, timeout);
    }

    /** Sets the schedule the next {@link #run} follows. */
    StageStep schedule(int[] ops) {
        this.ops = ops;
        return this;
    }

    @Override
    public StepsDone run(WorkerJob job, StepRange range) {
        LinkedStage l = linkedStage();
        List<StepsDone> steps = new ArrayList<>();
        int mb = job.config().microbatches;
        try {
            for (long g = range.globalFirst + 1; g <= range.globalFirst + range.count; g++) {
                l.run(ops, Math.toIntExact((g - 1) * mb), (m, in) -> forward(job, m, in),
                        (m, in) -> backward(job, m, in));
                steps.add(end(job, g));
            }
            return concat(steps);
        } catch (RuntimeException e) {
            closeLinks();
            restart(job.model()); // the step starts over once the stages are linked again
            throw e;
        }
    }

    /** Staged steps are counted by the driver. */
    @Override
    public long completed() {
        return -1;
    }

    /** Runs a micro-batch forward; see {@link TrainWorker#forward}. */
    byte[] forward(WorkerJob job, int microbatch, byte[] activation) {
        long t0 = System.nanoTime();
        ModelStage m = job.model();
        WorkerConfig config = job.config();
        MicroBatchGraph g = m.microBatches();
        byte[] out;
        if (m.isFirst() || m.isLast()) {
            try (ShardArrays.Rows r = microbatchRows.open(config, job.data().train(),
                    replicas.info().rank() / (replicas.info().worldSize() / config.shards),
                    microbatch)) {
                if (m.isLast()) {
                    step.lossSum += g.forwardBackward(microbatch, activation,
                            m.isFirst() ? r.features() : null, r.labels(),
                            1f / config.microbatches);
                    out = g.inputGradient(microbatch);
                } else {
                    out = g.forward(microbatch, r.features());
                }
            }
        } else {
            out = g.forward(microbatch, activation);
        }
        step.forwards++;
        return step.handOn(out, t0);
    }

    /** Runs a micro-batch backward; see {@link TrainWorker#backward}. */
    byte[] backward(WorkerJob job, int microbatch, byte[] gradient) {
        long t0 = System.nanoTime();
        byte[] out = job.model().microBatches().backward(microbatch, gradient);
        step.backwards++;
        return step.handOn(out, t0);
    }

    /**
     * Ends a step: checks that every micro-batch passed, averages the gradients with the
     * stage's replicas, takes the optimizer step, and starts the next step.
     */
    StepsDone end(WorkerJob job, long globalStep) {
        ModelStage m = job.model();
        int mb = job.config().microbatches;
        if (step.forwards != mb || (!m.isLast() && step.backwards != mb)) {
            throw new DmlException("Stage " + job.config().stage + " ran " + step.forwards
                    + " forwards and " + step.backwards + " backwards of " + mb
                    + " micro-batches in step " + globalStep + ".",
                    "A neighbouring stage failed first; see its error.");
        }
        long t1 = System.nanoTime();
        CollectiveStats before = replicas.stats();
        if (replicas.info().worldSize() > 1) {
            m.setGradients(replicas.allReduce(m.gradients(), ReduceOp.AVERAGE));
        }
        CollectiveStats after = replicas.stats();
        long t2 = System.nanoTime();
        m.step();
        long busy = step.busy + System.nanoTime() - t2;
        StepsDone done = new StepsDone(1, false,
                new float[] {m.isLast() ? (float) (step.lossSum / mb) : Float.NaN},
                new long[] {busy}, new long[] {t2 - t1},
                new long[] {after.bytesSent() - before.bytesSent()},
                new long[] {after.interNodeBytesSent() - before.interNodeBytesSent()},
                step.moved);
        step.begin(m);
        return done;
    }

    /** Consecutive steps' records as one: the steps in order, the bytes handed on summed. */
    private static StepsDone concat(List<StepsDone> steps) {
        int n = steps.size();
        float[] losses = new float[n];
        long[][] t = new long[4][n];
        long moved = 0;
        for (int i = 0; i < n; i++) {
            StepsDone d = steps.get(i);
            losses[i] = d.losses()[0];
            t[0][i] = d.compute()[0];
            t[1][i] = d.comm()[0];
            t[2][i] = d.bytes()[0];
            t[3][i] = d.interNode()[0];
            moved += d.moved();
        }
        return new StepsDone(n, false, losses, t[0], t[1], t[2], t[3], moved);
    }

    /** Closes the direct links, if any. */
    @Override
    public void close() {
        closeLinks();
    }

    private void closeLinks() {
        Closeables.closeAll(linked);
        linked = null;
    }

    private LinkedStage linkedStage() {
        if (linked == null) {
            throw new DmlException("Rank " + replicas.info().rank()
                    + " has no direct links to its stages.",
                    "The driver links a replica's stages before it runs them.");
        }
        return linked;
    }
}

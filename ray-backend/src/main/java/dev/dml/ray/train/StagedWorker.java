package dev.dml.ray.train;

import dev.dml.Closeables;
import dev.dml.DmlException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A worker's side of a pipeline whose stages hand off over direct links ({@link LinkedStage}):
 * the driver links each replica's stages ({@link #listenStages}, {@link #linkStages}), then
 * each stage runs its steps itself ({@link #runStage}) with the passes the subclass defines.
 */
public abstract class StagedWorker extends RecoverableWorker {

    private LinkedStage linked;

    /** For subclasses. */
    protected StagedWorker() {}

    /**
     * Runs a micro-batch forward on this stage (on the last, also the loss and backward).
     *
     * @param microbatch the micro-batch, numbered over the job
     * @param activation the previous stage's output
     * @return what goes on: an activation, or the last stage's input gradient
     */
    public abstract byte[] forward(int microbatch, byte[] activation);

    /**
     * Runs a micro-batch backward with the next stage's gradient.
     *
     * @param microbatch the micro-batch, numbered over the job
     * @param gradient the gradient of this stage's output
     * @return the gradient of this stage's input
     */
    public abstract byte[] backward(int microbatch, byte[] gradient);

    /**
     * Ends a step: the replicas' all-reduce and the optimizer step.
     *
     * @param globalStep the step, from 1
     * @return what the stage did in it
     */
    public abstract WorkerReport endStep(long globalStep);

    /** Micro-batches per step. */
    abstract int microbatches();

    /** Forgets a step cut short, so that it starts over. */
    abstract void restartStep();

    /**
     * Opens this stage's end of its replica's direct links (closing earlier ones); {@link
     * #linkStages} connects them once every stage of the replica listens.
     *
     * @param token the replica's token
     * @return {@code host:port} for the neighbours
     */
    public String listenStages(long token) {
        closeLinks();
        linked = new LinkedStage(token);
        return linked.address();
    }

    /**
     * Connects this stage to its neighbours, so that {@link #runStage} can hand off directly.
     *
     * @param stage this worker's stage
     * @param endpoints every stage's {@link #listenStages} address, by stage
     * @param nodes every stage's node id, by stage
     * @param token the replica's token
     * @param timeoutMillis how long a hand-off may be waited for
     * @return {@code true}
     */
    public boolean linkStages(int stage, ArrayList<String> endpoints, ArrayList<String> nodes,
            long token, long timeoutMillis) {
        linkedStage().connect(stage, endpoints, nodes, token, Duration.ofMillis(timeoutMillis));
        return true;
    }

    /**
     * Runs staged steps here: each step this stage's schedule over its direct links, then
     * {@link #endStep}; the next step's forwards start while later stages still end this one. A
     * failure closes the links, so the other stages' waits end too.
     *
     * @param range the steps, which every stage of every replica runs
     * @param ops this stage's schedule
     * @return what the stage did, step by step
     */
    public WorkerReport runStage(StepRange range, int[] ops) {
        LinkedStage l = linkedStage();
        List<WorkerReport> steps = new ArrayList<>();
        try {
            for (long g = range.globalFirst + 1; g <= range.globalFirst + range.count; g++) {
                l.run(ops, Math.toIntExact((g - 1) * microbatches()), this::forward,
                        this::backward);
                steps.add(endStep(g));
            }
            return WorkerReport.concat(steps);
        } catch (RuntimeException e) {
            closeLinks();
            restartStep();
            throw e;
        }
    }

    /** Closes the direct links, if any. */
    void closeLinks() {
        Closeables.closeAll(linked);
        linked = null;
    }

    private LinkedStage linkedStage() {
        if (linked == null) {
            throw new DmlException("Rank " + rank() + " has no direct links to its stages.",
                    "The driver links a replica's stages before it runs them.");
        }
        return linked;
    }
}

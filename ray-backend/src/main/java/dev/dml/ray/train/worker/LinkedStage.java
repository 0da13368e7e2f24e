package dev.dml.ray.train.worker;

import dev.dml.ray.collective.StageLinks;
import java.time.Duration;
import java.util.List;

/**
 * One stage's side of a pipeline step whose hand-offs go over direct links ({@link
 * StageLinks}): the stage runs its schedule itself, taking each micro-batch's input from its
 * neighbour and handing its output on, so a step costs the driver one call per stage instead of
 * one task per micro-batch and hop.
 */
final class LinkedStage implements AutoCloseable {

    /** A stage's pass over one micro-batch, as the worker runs it for the driver's tasks too. */
    interface Pass {

        /** Runs it on micro-batch {@code microbatch} with the neighbour's bytes. */
        byte[] run(int microbatch, byte[] input);
    }

    private final StageLinks links;
    private int stage = -1;
    private int stages;

    /** Opens the stage's listening socket for the replica with {@code token}. */
    LinkedStage(long token) {
        this.links = StageLinks.listen(token);
    }

    String address() {
        return links.address();
    }

    /** Connects to the neighbours; every stage of the replica listens already. */
    void connect(int stage, List<String> endpoints, List<String> nodes, long token,
            Duration timeout) {
        links.connect(stage, endpoints, nodes, token, timeout);
        this.stage = stage;
        this.stages = endpoints.size();
    }

    /**
     * Runs one step's ops (see {@link dev.dml.ray.train.staged.Schedules}) in order.
     *
     * @param ops the schedule of this stage
     * @param base the step's first micro-batch, numbered over the job
     * @param forward the forward pass (on the last stage also the loss and backward)
     * @param backward the backward pass, with the next stage's gradient
     */
    void run(int[] ops, int base, Pass forward, Pass backward) {
        boolean first = stage == 0;
        boolean last = stage == stages - 1;
        for (int op : ops) {
            if (op >= 0) {
                int m = base + op;
                byte[] in = first ? TrainWorker.NONE : links.take(stage - 1, m,
                        StageLinks.FORWARD);
                byte[] out = forward.run(m, in);
                if (!last) {
                    links.send(stage + 1, m, StageLinks.FORWARD, out);
                } else if (!first) {
                    // the last stage's forward ran the loss and returns its input's gradient
                    links.send(stage - 1, m, StageLinks.BACKWARD, out);
                }
            } else {
                int m = base - op - 1;
                byte[] out = backward.run(m, links.take(stage + 1, m, StageLinks.BACKWARD));
                if (!first) {
                    links.send(stage - 1, m, StageLinks.BACKWARD, out);
                }
            }
        }
    }

    /** Closes the links: the neighbours' waits end at once. */
    @Override
    public void close() {
        links.close();
    }
}

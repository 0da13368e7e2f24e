package dev.dml.ray.train.worker;

import dev.dml.ray.model.ModelStage;

/** A staged step's counters on one worker, from its first micro-batch to its end. */
final class StageCounters {

    int forwards;
    int backwards;
    double lossSum;
    long busy;
    long moved;

    /** Starts a step: the stage's micro-batch graph and these counters from zero. */
    void begin(ModelStage m) {
        m.microBatches().beginStep();
        forwards = 0;
        backwards = 0;
        lossSum = 0;
        busy = 0;
        moved = 0;
    }

    /** Counts a pass that began at {@code t0} and the bytes it hands to the next stage. */
    byte[] handOn(byte[] out, long t0) {
        busy += System.nanoTime() - t0;
        if (out == null) {
            return TrainWorker.NONE;
        }
        moved += out.length;
        return out;
    }
}

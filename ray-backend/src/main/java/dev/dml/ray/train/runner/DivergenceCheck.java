package dev.dml.ray.train.runner;

import dev.dml.DmlException;

/**
 * Fails the job as soon as two workers that should hold the same parameters do not: every rank
 * of a data-parallel job, or the replicas of one stage. A bug in the all-reduce would otherwise
 * train on silently.
 */
final class DivergenceCheck implements DriverListener {

    @Override
    public void onSteps(StrategyWorkers plan, StepChunk chunk, long step) {
        for (StepChunk.ReplicaSet set : chunk.replicas()) {
            long[] h = set.hashes();
            for (int i = 1; i < h.length; i++) {
                if (h[i] != h[0]) {
                    throw new DmlException("The replicas diverged at step " + step + ": "
                            + set.workers().get(i) + " holds other parameters of " + set.what()
                            + " than " + set.workers().get(0) + ".",
                            "Report this as a bug in dml, with the job's spec.");
                }
            }
        }
    }
}

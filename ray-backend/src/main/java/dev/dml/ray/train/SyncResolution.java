package dev.dml.ray.train;

import dev.dml.options.SyncMode;
import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;

/**
 * Refuses {@code --sync async|ssp:S} and {@code --ps} where they cannot work, one line each:
 * parameter servers serve the whole-model replicas of data parallelism, each worker pushing its
 * own update after every batch, so they do not mix with staged strategies, an all-reduce's
 * compression or overlap, added-up batches, or a worker count that changes.
 */
final class SyncResolution {

    private SyncResolution() {}

    /**
     * Checks the options.
     *
     * @param v the options
     * @param strategy the resolved strategy
     * @param workers the job's workers (the most, when elastic)
     */
    static void check(OptionValues v, Strategy strategy, int workers) {
        SyncMode mode = v.get(TrainOptions.SYNC);
        if (mode.isSync()) {
            if (v.isSet(TrainOptions.PS)) {
                throw new DmlException("{ps} starts parameter servers for an asynchronous job,"
                        + " but this one all-reduces every step ({sync=sync}).",
                        "Add {sync=async} (or ssp:S), or leave {ps} out.");
            }
            return;
        }
        String sync = "{sync=" + mode + "}";
        String why = null;
        String fix = null;
        if (strategy instanceof Strategy.Staged s) {
            why = "the strategy " + DmlException.literal(s) + " passes each batch through"
                    + " stages in step";
            fix = "use {strategy=data}";
        } else if (workers == 1) {
            why = "one worker has no peer to run ahead of";
            fix = "raise {workers} to 2 or more";
        } else if (v.get(TrainOptions.WORKERS).elastic()) {
            why = "{workers=" + v.get(TrainOptions.WORKERS) + "} changes the workers while"
                    + " the servers count on each of them";
            fix = "give {workers} one number";
        } else if (!v.get(TrainOptions.COMPRESS).isNone()) {
            why = "{compress} compresses the all-reduce, which an asynchronous job does not run";
            fix = "leave {compress} out";
        } else if (v.isSet(TrainOptions.BUCKET_MB) && v.get(TrainOptions.BUCKET_MB) > 0) {
            why = "{bucket-mb} overlaps the all-reduce, which an asynchronous job does not run";
            fix = "leave {bucket-mb} out";
        } else if (v.get(TrainOptions.ACCUMULATE) > 1) {
            why = "each worker pushes its update after every batch, so {accumulate} has nothing"
                    + " to add up";
            fix = "leave {accumulate} out";
        } else if (v.get(TrainOptions.PS) > workers) {
            why = "{ps=" + v.get(TrainOptions.PS) + "} starts more servers than the " + workers
                    + " workers that feed them";
            fix = "set {ps} to at most " + workers;
        }
        if (why != null) {
            throw new DmlException(sync + " trains through parameter servers, but " + why + ".",
                    "Leave {sync} out, or " + fix + ".");
        }
    }

    /**
     * The staleness bound of a {@code --sync} value.
     *
     * @param mode sync, async or ssp:S
     * @return S, or -1 for none (async), or -2 for sync (no servers)
     */
    static int staleness(SyncMode mode) {
        return switch (mode.kind()) {
            case SYNC -> -2;
            case ASYNC -> -1;
            case SSP -> mode.staleness();
        };
    }
}

package dev.dml.options;

import static dev.dml.options.Declaration.choice;
import static dev.dml.options.Declaration.kernel;
import static dev.dml.options.Declaration.spec;

/**
 * How a job runs and ends: checkpoints, failures, limits, its record and the cell's job control.
 * Declared here by concern; {@link TrainOptions} gathers every group, so each option is {@code
 * TrainOptions.NAME} wherever it is used.
 */
interface RunOptions {

    /** Where checkpoints go. */
    Option<String> CHECKPOINT_DIR = spec("checkpoint-dir", ValueType.text(),
            "DIR", "write checkpoints into this folder").example("checkpoints")
            .noDefault("none: no checkpoints").java("optCheckpoints").done();

    /** Steps between checkpoints. */
    Option<Integer> CHECKPOINT_EVERY = spec("checkpoint-every",
            ValueType.count(), "STEPS", "steps between checkpoints").example("50").fixed(100)
            .java("optCheckpointEvery").done();

    /** Who writes the checkpoints. */
    Option<CheckpointWriter> CHECKPOINT_STORE = choice("checkpoint-store",
            CheckpointWriter.class, "who writes checkpoints: the driver, on its machine, or the"
            + " workers, into a folder every node mounts").example("shared")
            .fixed(CheckpointWriter.DRIVER).java("opt(TrainOptions.CHECKPOINT_STORE, ...)").done();

    /** What a failed checkpoint write does. */
    Option<CheckpointFailure> CHECKPOINT_FAILURE = choice(
            "checkpoint-failure", CheckpointFailure.class, "when a checkpoint cannot be written:"
            + " say so and train on, or stop the job").example("stop")
            .fixed(CheckpointFailure.WARN).java("opt(TrainOptions.CHECKPOINT_FAILURE, ...)")
            .done();

    /** Continue from the newest checkpoint. */
    Option<Boolean> RESUME = spec("resume", ValueType.onOff(), null,
            "continue from the newest checkpoint in --checkpoint-dir").example("true")
            .fixed(false).java("optResume").done();

    /** Worker losses a job recovers from. */
    Option<Integer> MAX_FAILURES = spec("max-failures",
            ValueType.countOrNone(), "N", "lost workers or nodes the job recovers from before"
            + " it fails (a pre-emption notice never counts); 3 covers the odd lost spot node"
            + " while a fault that repeats fails soon").example("0").fixed(3)
            .java("optMaxFailures").done();

    /** Dollars the job may spend. */
    Option<Double> BUDGET = spec("budget", ValueType.positive(), "USD",
            "checkpoint and stop before the job's cost would pass this many dollars (nodes"
            + " priced by their labels or %dml cluster price)").example("2.50")
            .noDefault("none").java("opt(TrainOptions.BUDGET, ...)").done();

    /** Time the job may take. */
    Option<Double> DEADLINE = spec("deadline", ValueType.duration(),
            "TIME", "checkpoint and stop before the job's run time would pass this (90s, 30m,"
            + " 2h)").example("30m").noDefault("none").java("opt(TrainOptions.DEADLINE, ...)")
            .done();

    /** Record the job in the run store. */
    Option<Boolean> RECORD = spec("record", ValueType.onOff(), null,
            "record the job's settings, data, metrics, cost and model in the run store"
            + " ($DML_RUNS_DIR, else ~/.local/share/dml/runs; see %dml runs); --no-record keeps"
            + " no record").example("true").fixed(true).java("opt(TrainOptions.RECORD, ...)")
            .done();

    /** A cluster address. */
    Option<String> CLUSTER = kernel("cluster", ValueType.text(), "HOST:PORT",
            "a Ray cluster's address").example("10.0.0.5:6379")
            .noDefault("this session's cluster (an embedded head on this machine)")
            .java("optClusterAddress").done();

    /** A configuration of the session's last {@code %dml plan}. */
    Option<String> PLAN = kernel("plan", ValueType.text(), "BEST|ROW",
            "run the job of the session's last %dml plan with the configuration it picked"
            + " (BEST) or the one in a row of its table").example("BEST")
            .noDefault("none").done();

    /** The notebook variable the result is bound to. */
    Option<String> INTO = kernel("into", ValueType.variableName(), "NAME",
            "bind the result to this variable").example("model").noDefault("none").done();

    /** Return once the job runs. */
    Option<Boolean> BACKGROUND = kernel("background", ValueType.onOff(),
            null, "return once the job runs (see %dml status, %dml stop)").example("true")
            .fixed(false).done();

    /** Hand the job to a driver that outlives the kernel. */
    Option<Boolean> DETACH = kernel("detach", ValueType.onOff(), null,
            "hand the job to a driver that keeps running after the kernel shuts down, on an"
            + " external cluster (see %dml attach, %dml stop)").example("true").fixed(false)
            .java("DetachedRuns.start(spec, cluster)").done();

    /** No live plots. */
    Option<Boolean> NO_PLOTS = kernel("no-plots", ValueType.onOff(), null,
            "do not draw live plots").example("true").fixed(false).done();

    /** Stack traces with errors. */
    Option<Boolean> DEBUG = kernel("debug", ValueType.onOff(), null,
            "show stack traces with errors").example("true").fixed(false).done();
}

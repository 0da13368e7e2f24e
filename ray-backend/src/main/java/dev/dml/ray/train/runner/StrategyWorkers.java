package dev.dml.ray.train.runner;

import dev.dml.events.WorkerInfo;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.train.worker.WorkerConfig;
import dev.dml.ray.train.worker.Evaluation;
import dev.dml.ray.train.worker.StepRange;
import dev.dml.ray.train.worker.TrainWorker;
import java.util.List;

/**
 * How a strategy's workers run a job's steps, for the one {@link JobRunner} that every
 * strategy shares: it starts the workers, loads their data, initialises them, runs the steps,
 * and asks for the state that checkpoints, validation and the result need. A data-parallel job
 * runs a few steps per call on every rank ({@link DataParallelWorkers}); a model-, pipeline- or
 * hybrid-parallel job schedules each step's micro-batches across its stages ({@link
 * StagedWorkers}). Lives in the driver.
 */
sealed interface StrategyWorkers permits DataParallelWorkers, StagedWorkers {

    /**
     * Returns the number of worker actors the plan starts.
     *
     * @return at least 1
     */
    int actors();

    /**
     * Returns the fewest worker actors the plan runs with: {@link #actors()} unless the job is
     * elastic.
     *
     * @return at least 1
     */
    default int fewestActors() {
        return actors();
    }

    /**
     * Returns the number of data shards: one per data-parallel rank or per replica.
     *
     * @return at least 1
     */
    int shards();

    /**
     * Starts the workers and hands them to {@code control}, which kills them on a stop.
     *
     * @param settings their resources and JVM options
     * @param control the job's control
     * @return who they are, by rank
     */
    List<WorkerInfo> open(ActorSettings settings, JobControl control);

    /**
     * Gives the workers their rows.
     *
     * @param shards one Arrow IPC shard per {@link #shards()}
     * @param validation the validation rows, or null
     */
    void load(List<byte[]> shards, byte[] validation);

    /**
     * Builds the model on every worker.
     *
     * @param config the whole model's config
     */
    void init(WorkerConfig config);

    /**
     * Returns how many steps one {@link #run} may cover.
     *
     * @param reportEvery the steps between reports the job asks for
     * @return at least 1
     */
    int stepsPerCall(int reportEvery);

    /**
     * Runs steps.
     *
     * @param range the steps, within one epoch
     * @return what they did
     */
    StepChunk run(StepRange range);

    /** Steps sent to the workers, whose chunk {@link #await} waits for. */
    @FunctionalInterface
    interface Sent {
        /** Waits for the workers' reports, as {@link #run} does. @return what they did */
        StepChunk await();
    }

    /**
     * Whether a call may be sent before the previous one's report is handled ({@link
     * CallsAhead}): only where no worker's snapshot can then be ahead of the driver's record.
     */
    default boolean sendsAhead() {
        return false;
    }

    /**
     * Whether every rank of a stage takes part in saving its state: a sharded optimizer's
     * state is gathered from all ({@code --shard-optimizer}); otherwise rank 0 alone saves.
     */
    default boolean gathersState() {
        return false;
    }

    /**
     * Sends steps to the workers and returns at once; {@link Sent#await} gets the chunk.
     *
     * @param range the steps, within one epoch
     * @return the call in flight
     */
    default Sent send(StepRange range) {
        return () -> run(range);
    }

    /**
     * Adds workers where the cluster has room that it lacked before (an elastic job, between
     * calls, with every worker at the same step); they take rank 0's state.
     *
     * @param control the job's control, which kills the new actors on a stop
     * @param step the steps the job has completed
     * @param notices gets one line when a growth fails and the job goes on as it was
     * @return what changed, or null when nothing did
     */
    default dev.dml.events.Resize grow(JobControl control, long step,
            java.util.function.Consumer<dev.dml.events.JobNotice> notices) {
        return null;
    }

    /**
     * Scores the validation rows.
     *
     * @return their metrics
     */
    Evaluation evaluate();

    /**
     * Returns the workers of each stage, one actor group per stage (a data-parallel job is one
     * stage), whose states checkpoints and the result read ({@link StageStates}).
     *
     * @return the groups, borrowed, in stage order
     */
    List<ActorGroup<TrainWorker>> stages();

    /**
     * Describes how the model is split, for the checkpoints' fingerprint: a checkpoint holds
     * one state per stage, of that stage's layers.
     *
     * @return e.g. {@code 1 stage} or {@code stages of 2+1 layers}; known after {@link #init}
     */
    String layout();

    /** Lets every worker free its model and data before the actors are killed. */
    void release();

    // Recovery (JobRunner's Recoveries): find the lost, replace them, restore every worker.

    /**
     * Ends every collective the workers wait in and finds the workers that are gone.
     *
     * @param why what happened, for the survivors' exceptions
     * @return the lost workers, as indexes into the job's worker list; empty when all answer
     */
    List<Integer> probe(String why);

    /**
     * Gets the state of workers that are leaving on a pre-emption notice into their peers'
     * snapshots at {@code step}; {@link #replace} then ends them.
     *
     * @param leaving the leaving workers' indexes
     * @param step the steps the job has completed, where every worker stopped
     */
    void handOver(List<Integer> leaving, long step);

    /**
     * Replaces workers with new actors on any node with room, joins them with the others, and
     * gives them their rows and an empty model. An elastic job with no room for them goes on
     * without them while it keeps its fewest workers.
     *
     * @param lost the workers' indexes
     * @param control the job's control, which kills the new actors on a stop
     * @return the job's workers now, by rank
     */
    List<WorkerInfo> replace(List<Integer> lost, JobControl control);

    /**
     * Restores every worker from the newest in-memory snapshot that surviving workers hold,
     * when they hold one of every stage at the same step.
     *
     * @param replaced the workers that were replaced, which hold no snapshot (a plan that
     *     renumbered its workers, an elastic job that shrank, knows its new ones itself)
     * @return the step of the snapshot restored, or -1 when there is none
     */
    long restoreFromPeers(List<Integer> replaced);

    /**
     * Returns how far the furthest worker got (steps completed over the job), which may be past
     * the last step the driver saw when a call failed midway.
     *
     * @return the steps
     */
    long progress();
}

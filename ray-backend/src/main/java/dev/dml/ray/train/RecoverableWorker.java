package dev.dml.ray.train;

import dev.dml.ray.collective.CollectiveWorker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The part of a {@link TrainWorker} that keeps its state for later: in-memory snapshots of its
 * stage's state, taken every few steps, copies of other stages' snapshots that it keeps for
 * them, checkpoint files in a shared folder, and whether a pre-emption notice came. A lost
 * worker's state then lives on in a peer: in every other rank of a data-parallel job (all hold
 * the same state), in the stage's other replicas, or in the copy its buddy stage keeps.
 */
public abstract class RecoverableWorker extends CollectiveWorker {

    /** Kept per stage: the newest and the one before, in case a loss cut the newest short. */
    private static final int KEPT = 2;

    private final Map<Integer, NavigableMap<Long, SnapshotCopy>> snapshots =
            new ConcurrentHashMap<>();
    /** This worker's pre-emption notice; it holds a job's state between entering and leaving. */
    final PreemptionNotice preemption = new PreemptionNotice();

    /** Creates a worker; Ray calls the subclass's constructor. */
    protected RecoverableWorker() {}

    /** This worker's stage: 0 in a data-parallel job. */
    abstract int stage();

    /** This worker's current training state, as a checkpoint holds it. */
    abstract byte[] currentState();

    /** Loads a state {@link #currentState()} gave; returns a hash of the parameters. */
    abstract long restore(byte[] state);

    /** Writes the state into {@code file}, in the shared checkpoint folder. */
    public Checkpoints.StageFile saveStateTo(String file) {
        return Checkpoints.writeStage(Path.of(file), currentState());
    }

    /** Loads the state a stage's rank 0 wrote into the shared folder; see {@link #restore}. */
    public long restoreFrom(Checkpoints.StageFile file) {
        return restore(Checkpoints.readStage(Path.of(file.name()), file));
    }

    /** Tells whether this worker's node can read {@code path}: is a shared folder shared? */
    public boolean sees(String path) {
        return Files.isReadable(Path.of(path));
    }

    /**
     * Takes a snapshot of this worker's state now and keeps it, replacing its older one.
     *
     * @param step the steps the job has completed
     * @return the snapshot's size in bytes (a buddy gets a copy through {@link #heldSnapshot})
     */
    public long snapshot(long step) {
        SnapshotCopy s = new SnapshotCopy(stage(), step, currentState());
        put(s);
        return s.state.length;
    }

    /**
     * Keeps a copy of another stage's snapshot, in case that stage's workers are lost.
     *
     * @param copy the snapshot
     * @return {@code true}
     */
    public boolean keep(SnapshotCopy copy) {
        if (copy.exists()) {
            put(copy);
        }
        return true;
    }

    private void put(SnapshotCopy s) {
        NavigableMap<Long, SnapshotCopy> held = snapshots.computeIfAbsent(s.stage,
                k -> new ConcurrentSkipListMap<>());
        held.tailMap(s.step, false).clear(); // after a rollback, later ones are another past
        held.put(s.step, s);
        while (held.size() > KEPT) {
            held.pollFirstEntry();
        }
    }

    /**
     * Returns the newest snapshot this worker holds of a stage.
     *
     * @param stage the stage
     * @return the snapshot, or {@link SnapshotCopy#NONE}
     */
    public SnapshotCopy heldSnapshot(int stage) {
        NavigableMap<Long, SnapshotCopy> held = snapshots.get(stage);
        return held == null || held.isEmpty() ? SnapshotCopy.NONE : held.lastEntry().getValue();
    }

    /**
     * Returns the steps at which this worker holds a snapshot of a stage.
     *
     * @param stage the stage
     * @return the steps, oldest first
     */
    public long[] snapshotSteps(int stage) {
        NavigableMap<Long, SnapshotCopy> held = snapshots.get(stage);
        return held == null ? new long[0]
                : held.keySet().stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Returns this worker's snapshot of a stage at a step.
     *
     * @param stage the stage
     * @param step the step
     * @return the snapshot, or {@link SnapshotCopy#NONE}
     */
    public SnapshotCopy heldSnapshotAt(int stage, long step) {
        NavigableMap<Long, SnapshotCopy> held = snapshots.get(stage);
        return held == null ? SnapshotCopy.NONE : held.getOrDefault(step, SnapshotCopy.NONE);
    }

    /** Whether this worker got a pre-emption notice. */
    @Override
    public boolean leaving() {
        return preemption.noticed();
    }

    /** Drops every snapshot, with the job's state. */
    void dropSnapshots() {
        snapshots.clear();
    }
}

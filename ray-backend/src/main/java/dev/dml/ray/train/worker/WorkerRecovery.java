package dev.dml.ray.train.worker;

import java.util.Map;
import java.util.NavigableMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The part of a {@link TrainWorker} that keeps state for later: in-memory snapshots of its
 * stage's state, taken every few steps, copies of other stages' snapshots that it keeps for
 * them, and whether a pre-emption notice came. A lost worker's state then lives on in a peer:
 * in every other rank of a data-parallel job (all hold the same state), in the stage's other
 * replicas, or in the copy its buddy stage keeps. Checkpoint files go through {@link
 * Checkpoints}; the worker only hands this part its state.
 */
final class WorkerRecovery {

    /** Kept per stage: the newest and the one before, in case a loss cut the newest short. */
    private static final int KEPT = 2;

    private final Map<Integer, NavigableMap<Long, SnapshotCopy>> snapshots =
            new ConcurrentHashMap<>();
    /** This worker's pre-emption notice; it holds a job's state between entering and leaving. */
    private final PreemptionNotice preemption = new PreemptionNotice();

    /** The worker starts a job: a pre-emption notice from now on stops it cleanly. */
    void enterJob() {
        preemption.enterJob();
    }

    /** The worker's job is over: drops every snapshot and the notice's hold on the job. */
    void leaveJob() {
        snapshots.clear();
        preemption.leaveJob();
    }

    /** Whether this worker got a pre-emption notice. */
    boolean leaving() {
        return preemption.noticed();
    }

    /** Keeps {@code state} as the snapshot of {@code stage} at {@code step}; returns its size. */
    long snapshot(int stage, long step, byte[] state) {
        SnapshotCopy s = new SnapshotCopy(stage, step, state);
        put(s);
        return s.state.length;
    }

    /** Keeps a copy of another stage's snapshot, in case that stage's workers are lost. */
    void keep(SnapshotCopy copy) {
        if (copy.exists()) {
            put(copy);
        }
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

    /** The newest snapshot held of a stage, or {@link SnapshotCopy#NONE}. */
    SnapshotCopy held(int stage) {
        NavigableMap<Long, SnapshotCopy> held = snapshots.get(stage);
        return held == null || held.isEmpty() ? SnapshotCopy.NONE : held.lastEntry().getValue();
    }

    /** The steps at which a snapshot of a stage is held, oldest first. */
    long[] steps(int stage) {
        NavigableMap<Long, SnapshotCopy> held = snapshots.get(stage);
        return held == null ? new long[0]
                : held.keySet().stream().mapToLong(Long::longValue).toArray();
    }

    /** The snapshot of a stage at a step, or {@link SnapshotCopy#NONE}. */
    SnapshotCopy heldAt(int stage, long step) {
        NavigableMap<Long, SnapshotCopy> held = snapshots.get(stage);
        return held == null ? SnapshotCopy.NONE : held.getOrDefault(step, SnapshotCopy.NONE);
    }
}

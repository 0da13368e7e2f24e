package dev.dml.ray.train.staged;

import dev.dml.options.PipelineSchedule;
import dev.dml.DmlException;
import dev.dml.ray.collective.CollectiveException;
import dev.dml.ray.train.device.WorkerReport;
import dev.dml.ray.train.worker.StepRange;
import dev.dml.ray.train.worker.TrainWorker;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.WaitResult;
import io.ray.api.exception.RayTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Runs one step of a staged job. With direct links between the stages ({@link StageHandOffs}),
 * each stage runs its own schedule and its end of step in one call, handing micro-batches to
 * its neighbours itself; the driver waits for the reports.
 *
 * <p>Without them, the driver submits every stage's forward and backward tasks in its
 * schedule's order, each fed the object reference its neighbour's task returned; waits until
 * they have ended (without fetching their bytes), then runs every stage's end of step and waits
 * for the reports.
 *
 * <p>On a cluster Ray runs one caller's tasks on an actor in submission order, each once its
 * arguments exist; so the tasks are submitted in an order that follows each stage's schedule and
 * in which every task's input was submitted before it (the schedules guarantee that such an
 * order exists). Ray's LOCAL mode runs a task whose arguments are ready before an earlier one
 * that waits: the data dependencies keep the result the same, only the order differs.
 */
public final class PipelineStep {

    private final List<List<ActorHandle<TrainWorker>>> actors;
    private final int[][] ops;
    private final int microbatches;
    private final Duration timeout;
    private final Supplier<StageHandOffs> relink;
    private StageHandOffs handOffs;
    private boolean linksBroken;

    /**
     * @param actors the actors, by replica, then stage
     * @param schedule the schedule
     * @param microbatches micro-batches per step
     * @param timeout how long a step may take
     * @param handOffs how the stages hand micro-batches on, as linked when they opened
     * @param relink links the stages again, after a failed step closed the links
     */
    public PipelineStep(List<List<ActorHandle<TrainWorker>>> actors, PipelineSchedule schedule,
            int microbatches, Duration timeout, StageHandOffs handOffs,
            Supplier<StageHandOffs> relink) {
        this.actors = actors;
        this.microbatches = microbatches;
        this.timeout = timeout;
        this.handOffs = handOffs;
        this.relink = relink;
        int k = actors.get(0).size();
        this.ops = new int[k][];
        for (int s = 0; s < k; s++) {
            ops[s] = schedule == PipelineSchedule.GPIPE
                    ? Schedules.gpipe(s, k, microbatches)
                    : Schedules.oneFOneB(s, k, microbatches);
        }
    }

    /** True when the stages hand off over direct links, and so can run several steps a call. */
    public boolean linked() {
        return handOffs.direct();
    }

    /**
     * Runs a range of steps: several over direct links, one (its first) otherwise; returns the
     * reports by replica, then stage.
     */
    public List<List<WorkerReport>> run(StepRange range) {
        if (linksBroken) {
            // a failed step closed the links (so that no stage waited on); link them again
            handOffs = relink.get();
            linksBroken = false;
        }
        return handOffs.direct() ? runLinked(range) : runByTasks(range.globalFirst + 1);
    }

    /** Each stage runs its schedule and its end of step itself, over the direct links. */
    private List<List<WorkerReport>> runLinked(StepRange range) {
        List<ObjectRef<WorkerReport>> ends = new ArrayList<>();
        for (List<ActorHandle<TrainWorker>> replica : actors) {
            for (int s = 0; s < replica.size(); s++) {
                ends.add(replica.get(s).task(TrainWorker::runStage, range, ops[s]).remote());
            }
        }
        long globalStep = range.globalFirst + range.count;
        try {
            waitFor(ends, globalStep);
            return byReplica(ends);
        } catch (DmlException e) {
            linksBroken = true;
            throw rootCause(ends, e);
        }
    }

    private List<List<WorkerReport>> runByTasks(long globalStep) {
        List<ObjectRef<byte[]>> submitted = new ArrayList<>();
        for (List<ActorHandle<TrainWorker>> replica : actors) {
            // micro-batches are numbered over the job: a stage tells their epoch from it
            submit(replica, submitted, Math.toIntExact((globalStep - 1) * microbatches));
        }
        waitFor(submitted, globalStep);
        List<ObjectRef<WorkerReport>> ends = new ArrayList<>();
        for (List<ActorHandle<TrainWorker>> replica : actors) {
            for (ActorHandle<TrainWorker> a : replica) {
                ends.add(a.task(TrainWorker::endStep, globalStep).remote());
            }
        }
        waitFor(ends, globalStep);
        try {
            return byReplica(ends);
        } catch (DmlException e) {
            throw rootCause(submitted, e);
        }
    }

    private List<List<WorkerReport>> byReplica(List<ObjectRef<WorkerReport>> ends) {
        List<WorkerReport> flat = new ArrayList<>();
        ends.forEach(r -> flat.add(get(r)));
        List<List<WorkerReport>> out = new ArrayList<>();
        int k = ops.length;
        for (int d = 0; d < actors.size(); d++) {
            out.add(flat.subList(d * k, (d + 1) * k));
        }
        return out;
    }

    /** Submits one replica's forward and backward tasks. */
    @SuppressWarnings("unchecked")
    private void submit(List<ActorHandle<TrainWorker>> stages, List<ObjectRef<byte[]>> all,
            int base) {
        int k = stages.size();
        ObjectRef<byte[]>[][] fwd = new ObjectRef[k][microbatches];
        ObjectRef<byte[]>[][] bwd = new ObjectRef[k][microbatches];
        int[] next = new int[k];
        int left = 0;
        for (int[] o : ops) {
            left += o.length;
        }
        while (left > 0) {
            boolean progress = false;
            for (int s = 0; s < k; s++) {
                while (next[s] < ops[s].length) {
                    int op = ops[s][next[s]];
                    ActorHandle<TrainWorker> a = stages.get(s);
                    ObjectRef<byte[]> ref;
                    if (op >= 0) {
                        if (s == 0) {
                            ref = a.task(TrainWorker::forward, base + op,
                                    TrainWorker.NONE).remote();
                        } else if (fwd[s - 1][op] != null) {
                            ref = a.task(TrainWorker::forward, base + op, fwd[s - 1][op])
                                    .remote();
                        } else {
                            break;
                        }
                        fwd[s][op] = ref;
                    } else {
                        int m = -op - 1;
                        // the last stage's forward returns the gradient of its input
                        ObjectRef<byte[]> g = s + 1 == k - 1 ? fwd[s + 1][m] : bwd[s + 1][m];
                        if (g == null) {
                            break;
                        }
                        ref = a.task(TrainWorker::backward, base + m, g).remote();
                        bwd[s][m] = ref;
                    }
                    all.add(ref);
                    next[s]++;
                    left--;
                    progress = true;
                }
            }
            if (!progress) {
                throw new DmlException("The pipeline schedule cannot proceed.",
                        "Report this as a bug in dml, with the strategy.");
            }
        }
    }

    private <T> void waitFor(List<ObjectRef<T>> refs, long step) {
        WaitResult<T> w = Ray.wait(refs, refs.size(), (int) Math.min(Integer.MAX_VALUE,
                timeout.toMillis()), false);
        if (w.getReady().size() < refs.size()) {
            throw new DmlException("Step " + step + " did not end within " + timeout.toSeconds()
                    + " s.", "Check the workers' logs; a stage may be stuck or out of memory.");
        }
    }

    /**
     * Reports the failure that caused the rest. Tasks: the first failed one in submission order
     * (its inputs come from tasks submitted before it); every task has ended once its actor's
     * end of step has. Direct links: the first stage that failed for a reason of its own, not
     * because a neighbour's link ended.
     */
    private <T> DmlException rootCause(List<ObjectRef<T>> submitted, DmlException fallback) {
        DmlException first = null;
        // only the ended ones: after a step that timed out, some tasks may never end
        Set<ObjectRef<T>> ended = Collections.newSetFromMap(new IdentityHashMap<>());
        ended.addAll(Ray.wait(submitted, submitted.size(), 0, false).getReady());
        for (ObjectRef<T> r : submitted) {
            if (!ended.contains(r)) {
                continue;
            }
            try {
                get(r);
            } catch (DmlException e) {
                if (!causedBy(e, CollectiveException.class)) {
                    return e;
                }
                first = first == null ? e : first;
            }
        }
        return first != null ? first : fallback;
    }

    private static boolean causedBy(Throwable e, Class<? extends Throwable> kind) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (kind.isInstance(t)) {
                return true;
            }
        }
        return false;
    }

    private <T> T get(ObjectRef<T> ref) {
        try {
            return Ray.get(ref, timeout.toMillis());
        } catch (RayTimeoutException e) {
            throw new DmlException("A stage did not answer within " + timeout.toSeconds()
                    + " s.", "Check the workers' logs; a stage may be stuck or out of memory.",
                    e);
        } catch (RuntimeException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof DmlException) {
                    DmlException d = (DmlException) t;
                    throw new DmlException("A stage failed: " + d.what(), d.hint(), e);
                }
            }
            throw new DmlException("A stage failed: " + DmlException.firstLine(e.getMessage()),
                    "See the worker logs of the job's actors.", e);
        }
    }
}

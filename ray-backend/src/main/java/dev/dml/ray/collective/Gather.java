package dev.dml.ray.collective;

import dev.dml.DmlException;
import dev.dml.events.WorkerInfo;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.WaitResult;
import io.ray.api.exception.RayTimeoutException;
import java.io.Serializable;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/** Waits for one result per rank and turns the first failure into a {@link CollectiveException}. */
public final class Gather {

    private Gather() {}

    /** Waits for all refs, failing at the first rank that fails rather than in rank order. */
    public static <R> List<R> await(
            List<ObjectRef<R>> refs, List<WorkerInfo> who, String what, Duration timeout) {
        Map<ObjectRef<R>, Integer> rankOf = new IdentityHashMap<>();
        for (int r = 0; r < refs.size(); r++) {
            rankOf.put(refs.get(r), r);
        }
        List<R> out = new ArrayList<>();
        refs.forEach(r -> out.add(null));
        List<ObjectRef<R>> left = new ArrayList<>(refs);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!left.isEmpty()) {
            long ms = Math.max(0, (deadline - System.nanoTime()) / 1_000_000);
            WaitResult<R> w = Ray.wait(left, 1, (int) Math.min(Integer.MAX_VALUE, ms));
            if (w.getReady().isEmpty()) {
                int r = rankOf.get(left.get(0));
                throw new CollectiveException(
                        describe(who, r) + " did not finish " + what + " within "
                                + timeout.toSeconds() + " s.",
                        "Look for a stuck or dead worker: the job's worker logs show it.");
            }
            for (ObjectRef<R> ref : w.getReady()) {
                int rank = rankOf.get(ref);
                out.set(rank, get(ref, rank, who, what));
                left.remove(ref);
            }
        }
        return out;
    }

    private static <R> R get(ObjectRef<R> ref, int rank, List<WorkerInfo> who, String what) {
        try {
            return Ray.get(ref, 30_000);
        } catch (RayTimeoutException e) {
            throw new CollectiveException(describe(who, rank) + " has no result for " + what
                    + " although Ray reported it ready.", "Retry; report it if it persists.", e);
        } catch (RuntimeException e) {
            DmlException dml = findDml(e);
            // templates, not rendered lines: the cell renders {s3-endpoint} as --s3-endpoint
            String why = dml != null ? dml.whatTemplate()
                    : DmlException.literal(DmlException.firstLine(e.getMessage()));
            String hint = dml != null && !dml.hintTemplate().isEmpty() ? dml.hintTemplate()
                    : "See the worker's log (java-worker-*.log under the Ray session's logs).";
            throw new CollectiveException(
                    describe(who, rank) + " failed in " + what + ": " + why, hint, e);
        }
    }

    private static DmlException findDml(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof DmlException) {
                return (DmlException) c;
            }
        }
        return null;
    }

    private static String describe(List<WorkerInfo> who, int rank) {
        if (rank >= who.size()) {
            return "Rank " + rank;
        }
        WorkerInfo w = who.get(rank);
        return "Rank " + w.rank() + " (pid " + w.pid() + " on " + w.nodeIp() + ")";
    }

    /** The method's name, read from the method reference as Ray itself does. */
    static String methodName(Serializable methodRef) {
        try {
            Method m = methodRef.getClass().getDeclaredMethod("writeReplace");
            m.setAccessible(true);
            return ((SerializedLambda) m.invoke(methodRef)).getImplMethodName();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "a call";
        }
    }
}

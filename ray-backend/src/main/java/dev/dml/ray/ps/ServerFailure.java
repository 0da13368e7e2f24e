package dev.dml.ray.ps;

import dev.dml.DmlException;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.exception.RayActorException;
import io.ray.api.exception.RayException;
import io.ray.api.exception.RayTimeoutException;

/**
 * The one line a worker's call to a parameter server fails with: the server's own error (the
 * staleness gate gave up, the job aborted the servers' waits), or the loss of the server. A job
 * does not recover from a lost server: its partition's updates since the last run of steps live
 * nowhere else, so the job fails and says to resume from a checkpoint.
 */
final class ServerFailure {

    private ServerFailure() {}

    /**
     * Waits, bounded, for one server's answer.
     *
     * @param ref the call's result
     * @param server the server's index
     * @param servers how many there are
     * @param what the call, for the message
     * @param millis how long it may take
     * @param <T> the answer
     * @return the answer
     * @throws DmlException one line when the server failed, was lost, or did not answer in time
     */
    static <T> T await(ObjectRef<T> ref, int server, int servers, String what, long millis) {
        try {
            return Ray.get(ref, millis);
        } catch (RayTimeoutException e) {
            throw new DmlException("Parameter server " + server + " of " + servers + " did not"
                    + " answer " + what + " within " + Math.max(1, millis / 1000) + " s.",
                    "Look for a stuck or overloaded server in its log (java-worker-*.log under"
                            + " the Ray session's logs); start the job again.", e);
        } catch (RayException e) {
            throw of(server, servers, e);
        }
    }

    static DmlException of(int server, int servers, RuntimeException e) {
        for (Throwable c = e; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof DmlException d) {
                return new DmlException("Parameter server " + server + " of " + servers + ": "
                        + d.whatTemplate(), d.hintTemplate(), e);
            }
        }
        if (e instanceof RayActorException) {
            return lost(server, servers, "", e);
        }
        String m = String.valueOf(e.getMessage());
        int nl = m.indexOf('\n');
        return new DmlException("Parameter server " + server + " of " + servers + " failed: "
                + DmlException.literal(nl < 0 ? m : m.substring(0, nl)), "See the server's log"
                + " (java-worker-*.log under the Ray session's logs).", e);
    }

    /** A server that died or cannot be reached; {@code detail} is empty or " (why)". */
    static DmlException lost(int server, int servers, String detail, Exception e) {
        return new DmlException("Parameter server " + server + " of " + servers + " was lost"
                + detail + "; an asynchronous job does not outlive its servers.", "Start the"
                + " job again; with {checkpoint-dir}, {resume} continues from its last"
                + " checkpoint.", e);
    }
}

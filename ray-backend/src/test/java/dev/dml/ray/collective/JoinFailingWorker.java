package dev.dml.ray.collective;

import java.time.Duration;

/**
 * A test worker that, once {@link #failNewOnes} is set, starts broken: it answers {@code
 * locate} and {@code listen} like any worker, then fails in {@code join}, as a new worker of a
 * growing group that dies after the group's survivors have opened their new endpoints. LOCAL
 * mode only (the flag is this JVM's).
 */
public class JoinFailingWorker extends ProbeWorker {

    /** Whether workers created from now on fail when they join a group. */
    public static volatile boolean failNewOnes;

    /** Creates a worker; a broken one while {@link #failNewOnes} is set. */
    public JoinFailingWorker() {
        if (failNewOnes) {
            breakJoin(this);
        }
    }

    /**
     * Makes a worker that has joined no group fail when it joins one: join closes the
     * communicator it held before, and this one's transport fails there.
     *
     * @param w a new worker, in its constructor
     */
    public static void breakJoin(CollectiveWorker w) {
        Transport dies = new Transport() {
            @Override
            public Delivery send(int[] to, long seq, int step, byte[] payload) {
                throw new CollectiveException("never sends", "");
            }

            @Override
            public void close() {
                throw new CollectiveException("this new worker died while joining", "");
            }
        };
        try {
            java.lang.reflect.Field comm = CollectiveWorker.class.getDeclaredField("comm");
            comm.setAccessible(true);
            comm.set(w, new Communicator(0, 1, dies, Duration.ofSeconds(1)));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }
}

package dev.dml.ray.cluster;

import java.io.Serializable;

/**
 * Work that runs inside a {@link DriverProcess}, the child JVM where {@code Ray.init()} ran.
 *
 * <p>The kernel serializes the task (Java serialization), the driver runs it and sends the
 * result back the same way. A task is therefore a plain {@link Serializable} class whose class
 * is on the kernel's class path (the driver gets the same class path); its result must be
 * {@link Serializable} too, or {@code null}. Inside {@link #run}, the task may use the Ray API
 * freely: it runs in the driver, never in the kernel.
 *
 * <pre>{@code
 * final class MeanOfRanks implements DriverTask<float[]> {
 *     public float[] run(DriverContext context) {
 *         try (ActorGroup<CollectiveWorker> group =
 *                 ActorGroup.builder(CollectiveWorker::new).setSize(2).open()) {
 *             return group.allReduce(List.of(new float[] {1, 2}, new float[] {3, 4}),
 *                     ReduceOp.AVERAGE).get(0);                       // {2, 3}
 *         }
 *     }
 * }
 * float[] mean = driver.call(new MeanOfRanks());
 * }</pre>
 *
 * @param <R> the result type
 */
@FunctionalInterface
public interface DriverTask<R> extends Serializable {

    /**
     * Runs in the driver process. Tasks run on a pool, so several may run at once; state
     * that outlives one task goes in {@link DriverContext#register}.
     *
     * @param context the driver's state shared between tasks
     * @return the result, sent back to the kernel
     * @throws Exception any failure; the kernel gets it as a {@link dev.dml.DmlException}
     */
    R run(DriverContext context) throws Exception;

    /**
     * Says how long this task may go on running once the kernel has closed the channel or gone
     * away; the driver process waits that long for it before it ends. Most tasks serve the
     * kernel and end with it; a detached training job outlives it.
     *
     * @return zero (the default): the task ends with the kernel
     */
    default java.time.Duration outlivesKernel() {
        return java.time.Duration.ZERO;
    }
}

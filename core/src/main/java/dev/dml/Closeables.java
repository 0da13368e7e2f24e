package dev.dml;

import java.util.Arrays;

/**
 * Closes many resources at once, as Arrow's {@code AutoCloseables.close} does: every resource
 * is closed even when an earlier one fails, and the first failure is thrown with the later ones
 * attached as suppressed exceptions.
 */
public final class Closeables {

    private Closeables() {}

    /**
     * Closes each resource in order; {@code null}s are skipped.
     *
     * @param resources the resources
     * @throws RuntimeException the first failure (a checked one wrapped in an {@link
     *     IllegalStateException}), with any later failures suppressed in it
     */
    public static void closeAll(AutoCloseable... resources) {
        closeAll(Arrays.asList(resources));
    }

    /**
     * Closes each resource in order; {@code null}s are skipped.
     *
     * @param resources the resources
     * @throws RuntimeException the first failure, with any later failures suppressed in it
     */
    public static void closeAll(Iterable<? extends AutoCloseable> resources) {
        Throwable first = null;
        for (AutoCloseable r : resources) {
            if (r == null) {
                continue;
            }
            try {
                r.close();
            } catch (Throwable t) {
                if (first == null) {
                    first = t;
                } else if (first != t) {
                    first.addSuppressed(t);
                }
            }
        }
        if (first instanceof RuntimeException re) {
            throw re;
        }
        if (first instanceof Error err) {
            throw err;
        }
        if (first != null) {
            throw new IllegalStateException("Closing a resource failed: " + first, first);
        }
    }
}

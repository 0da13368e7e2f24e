package dev.dml.ray.collective;

import dev.dml.DmlException;

/** A collective operation failed: a peer died, timed out, or was called out of order. */
public class CollectiveException extends DmlException {

    private static final long serialVersionUID = 1L;

    /**
     * Creates the exception.
     *
     * @param what one line saying what went wrong
     * @param hint one line saying what to do next
     */
    public CollectiveException(String what, String hint) {
        super(what, hint);
    }

    /**
     * Creates the exception with a cause.
     *
     * @param what one line saying what went wrong
     * @param hint one line saying what to do next
     * @param cause the underlying failure
     */
    public CollectiveException(String what, String hint, Throwable cause) {
        super(what, hint, cause);
    }
}

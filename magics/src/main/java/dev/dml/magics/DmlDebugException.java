package dev.dml.magics;

import dev.dml.DmlException;

/**
 * A failure shown with its stack trace, because the user asked for it with {@code --debug}.
 * Its message is the failure's own; kernels that know dml print the cause's trace below it.
 */
public final class DmlDebugException extends DmlException {

    private static final long serialVersionUID = 1L;

    DmlDebugException(Throwable cause) {
        super(firstLine(cause), "(--debug: the stack trace follows)", cause);
    }

    private static String firstLine(Throwable cause) {
        String m = cause.getMessage();
        return m == null ? cause.toString() : m.strip();
    }
}

package dev.dml.magics;

/**
 * A {@code %dml} failure the user can fix. The message's first line says what went wrong, the
 * next says what to do; kernels that know dml show only these lines, never a stack trace.
 */
public class DmlException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** A failure with what went wrong and how to fix it. */
    public DmlException(String whatWentWrong, String howToFix) {
        super(whatWentWrong + System.lineSeparator() + howToFix);
    }

    /** A failure with what went wrong, how to fix it, and the exception behind it. */
    public DmlException(String whatWentWrong, String howToFix, Throwable cause) {
        super(whatWentWrong + System.lineSeparator() + howToFix, cause);
    }
}

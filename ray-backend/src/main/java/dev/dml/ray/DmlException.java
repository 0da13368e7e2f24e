package dev.dml.ray;

/**
 * The unchecked exception every dml failure extends.
 *
 * <p>A message has two parts: one line saying what went wrong ({@link #what()}) and one line
 * saying how to fix it ({@link #hint()}). {@link #getMessage()} joins them with a newline so that
 * a notebook cell shows both without the stack trace.
 */
public class DmlException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String what;
    private final String hint;

    /**
     * Creates an exception with what went wrong and how to fix it.
     *
     * @param what one line saying what went wrong
     * @param hint one line saying what to do next; may be {@code null} when there is nothing to do
     */
    public DmlException(String what, String hint) {
        this(what, hint, null);
    }

    /**
     * Creates an exception with what went wrong, how to fix it, and its cause.
     *
     * @param what one line saying what went wrong
     * @param hint one line saying what to do next; may be {@code null}
     * @param cause the underlying failure; may be {@code null}
     */
    public DmlException(String what, String hint, Throwable cause) {
        super(hint == null || hint.isEmpty() ? what : what + "\n" + hint, cause);
        this.what = what;
        this.hint = hint == null ? "" : hint;
    }

    /**
     * Returns the line saying what went wrong.
     *
     * @return the first line of the message
     */
    public String what() {
        return what;
    }

    /**
     * Returns the line saying how to fix the problem.
     *
     * @return the hint, or an empty string when there is none
     */
    public String hint() {
        return hint;
    }
}

package dev.dml;

/**
 * The unchecked exception every dml failure extends, in every module.
 *
 * <p>A message has two parts: one line saying what went wrong ({@link #what()}) and one line
 * saying how to fix it ({@link #hint()}). {@link #getMessage()} joins them with a newline, so a
 * notebook cell shows both without a stack trace.
 *
 * <p>Both lines are templates that name options as {@code {batch-size}} (or, with a value,
 * {@code {batch-size=64}}). They are rendered in the vocabulary of the surface where the user
 * typed the option: {@code --batch-size 64} in a notebook cell, {@code optBatchSize(64)} in Java
 * (the default). The notebook side calls {@link #speaking(Vocabulary)} before it shows the
 * message. Text the user typed goes through {@link #literal(String)} so that its braces stay
 * braces.
 */
public class DmlException extends RuntimeException {

    private static final long serialVersionUID = 2L;

    private final String what;
    private final String hint;
    private Vocabulary vocabulary = Vocabulary.JAVA;

    /**
     * Creates an exception with what went wrong and how to fix it.
     *
     * @param what one line saying what went wrong (a template)
     * @param hint one line saying what to do next (a template); {@code null} when there is
     *     nothing to do
     */
    public DmlException(String what, String hint) {
        this(what, hint, null);
    }

    /**
     * Creates an exception with what went wrong, how to fix it, and its cause.
     *
     * @param what one line saying what went wrong (a template)
     * @param hint one line saying what to do next (a template); may be {@code null}
     * @param cause the underlying failure; may be {@code null}
     */
    public DmlException(String what, String hint, Throwable cause) {
        super(null, cause);
        this.what = what == null ? "" : what;
        this.hint = hint == null ? "" : hint;
    }

    /**
     * Escapes text the user typed (a column name, a value) for a message template.
     *
     * @param text any text
     * @return the text with its braces doubled
     */
    public static String literal(Object text) {
        return String.valueOf(text).replace("{", "{{").replace("}", "}}");
    }

    /**
     * Makes this exception speak the vocabulary of a surface from now on.
     *
     * @param v where the message will be read
     * @return this exception
     */
    public DmlException speaking(Vocabulary v) {
        this.vocabulary = v;
        return this;
    }

    /**
     * Returns the vocabulary the message is rendered in.
     *
     * @return {@link Vocabulary#JAVA} unless {@link #speaking} changed it
     */
    public Vocabulary vocabulary() {
        return vocabulary;
    }

    /**
     * Returns the line saying what went wrong.
     *
     * @return the first line of the message
     */
    public String what() {
        return vocabulary.render(what);
    }

    /**
     * Returns the line saying how to fix the problem.
     *
     * @return the hint, or an empty string when there is none
     */
    public String hint() {
        return vocabulary.render(hint);
    }

    /**
     * Returns the unrendered first line, so it can cross a process boundary as text.
     *
     * @return the template
     */
    public String whatTemplate() {
        return what;
    }

    /**
     * Returns the unrendered hint.
     *
     * @return the template, or an empty string
     */
    public String hintTemplate() {
        return hint;
    }

    @Override
    public String getMessage() {
        String h = hint();
        return h.isEmpty() ? what() : what() + "\n" + h;
    }

    /**
     * Returns the first line of a message from elsewhere (a Ray error, a process's output), so
     * that what the user reads stays one line.
     *
     * @param message the message, or null
     * @return its first line, or {@code no message}
     */
    public static String firstLine(String message) {
        if (message == null) {
            return "no message";
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}

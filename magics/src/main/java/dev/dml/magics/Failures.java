package dev.dml.magics;

/** What a failed command shows: dml's two lines, plus the stack trace with {@code --debug}. */
final class Failures {

    private static final String DML_PACKAGE = "dev.dml.";

    private Failures() {}

    /**
     * The exception a command throws for a failure: a dml error as it is, anything else as a dml
     * error naming it; with {@code debug}, one that carries the stack trace to the cell.
     */
    static RuntimeException shown(RuntimeException e, boolean debug) {
        boolean isDml = e.getClass().getName().startsWith(DML_PACKAGE);
        if (debug) {
            return new DmlDebugException(e);
        }
        if (isDml) {
            return e;
        }
        return new DmlException("Unexpected failure: " + e + ".",
                "Run the command again with --debug to see the stack trace.", e);
    }
}

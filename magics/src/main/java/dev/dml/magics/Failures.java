package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.util.function.Supplier;

/** What a failed command shows: dml's two lines, plus the stack trace with {@code --debug}. */
final class Failures {

    private Failures() {}

    /**
     * The exception a command throws for a failure: a dml error as it is, anything else as a dml
     * error naming it; with {@code debug}, one that carries the stack trace to the cell. A dml
     * error speaks the notebook's words from here on ({@code --batch-size}, not Java's).
     */
    static RuntimeException shown(RuntimeException e, boolean debug) {
        if (e instanceof DmlException dml) {
            dml.speaking(Vocabulary.NOTEBOOK);
        }
        if (debug) {
            return new DmlDebugException(e);
        }
        if (e instanceof DmlException) {
            return e;
        }
        return new DmlException("Unexpected failure: " + e + ".",
                "Run the command again with --debug to see the stack trace.", e);
    }

    /**
     * Runs a command's work and throws any failure as {@link #shown(RuntimeException, boolean)}
     * makes it.
     *
     * @param debug whether the cell asked for {@code --debug}
     * @param work the command's work, after its words were parsed
     * @return what the work returned
     */
    static Object showing(boolean debug, Supplier<Object> work) {
        try {
            return work.get();
        } catch (RuntimeException e) {
            throw shown(e, debug);
        }
    }
}

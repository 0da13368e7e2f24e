package dev.dml.kernel.exec;

import java.util.List;

/**
 * Why a cell did not finish, when that is not simply an exception the cell threw (those are
 * rethrown as they are, so Jupyter's {@code ename} names the user's exception type).
 *
 * <p>Each kind knows the lines the notebook shows for it; Jupyter's {@code ename} is the
 * nested class's simple name.
 */
public abstract sealed class CellException extends RuntimeException
        permits CellException.CompilationException, CellException.JavaError,
        CellException.Interrupted {

    private static final long serialVersionUID = 1L;

    private final List<String> lines;

    CellException(String message, Throwable cause, List<String> lines) {
        super(message, cause);
        this.lines = List.copyOf(lines);
    }

    /** The lines shown in the cell (no embedded newlines). */
    public List<String> lines() {
        return lines;
    }

    /** The snippet was rejected by the compiler; lines mark the offending code. */
    public static final class CompilationException extends CellException {
        private static final long serialVersionUID = 1L;

        CompilationException(List<String> lines) {
            super(lines.isEmpty() ? "compilation failed" : lines.get(0), null, lines);
        }
    }

    /**
     * The cell threw an {@link Error}, which the protocol layer would not catch; the kernel
     * formats the cause like any thrown exception.
     */
    public static final class JavaError extends CellException {
        private static final long serialVersionUID = 1L;

        JavaError(Error original) {
            super(original.toString(), original, List.of());
        }
    }

    /** The user interrupted the kernel while the cell ran. */
    static final class Interrupted extends CellException {
        private static final long serialVersionUID = 1L;

        Interrupted() {
            super("the cell was stopped", null, List.of(
                    "Interrupted: the cell was stopped; the kernel and its variables are intact."));
        }
    }
}

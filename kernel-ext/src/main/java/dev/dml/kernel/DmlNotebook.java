package dev.dml.kernel;

/**
 * Static helpers every cell can call without an import (next to JJava's {@code display},
 * {@code updateDisplay} and {@code render}).
 */
public final class DmlNotebook {

    private DmlNotebook() {
    }

    /** Clears the running cell's output at once. */
    public static void clearOutput() {
        DmlKernel.current().clearOutput(false);
    }

    /** Clears the running cell's output; with {@code wait}, only when new output arrives. */
    public static void clearOutput(boolean wait) {
        DmlKernel.current().clearOutput(wait);
    }
}

package dev.dml.kernel;

import dev.dml.kernel.jupyter.TableDisplay;
import java.util.Map;
import tech.tablesaw.api.Table;

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

    /**
     * Shows a table with more (or fewer) rows than a cell's value shows: the first and last
     * {@code maxRows / 2} rows.
     *
     * @param table the table
     * @param maxRows rows shown at most (at least 2)
     */
    public static void displayTable(Table table, int maxRows) {
        DmlKernel kernel = DmlKernel.current();
        kernel.display(kernel.getRenderer().render(table,
                Map.of(TableDisplay.ROWS_PARAM, maxRows)));
    }
}

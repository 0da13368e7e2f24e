package dev.dml.kernel.jupyter;

import java.util.ArrayList;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Shows a Tablesaw {@link Table} that a cell returns or displays as an HTML table beside its
 * plain text. Like pandas, a long table shows its first and last rows and a wide one its first
 * and last columns, with the full size underneath, so that a million-row table is still a small
 * message.
 */
public final class TableDisplay {

    /** Rows shown before a table is cut: pandas shows 60; a notebook page reads better at 20. */
    static final int MAX_ROWS = 20;
    /** Columns shown before a table is cut, as pandas' {@code display.max_columns}. */
    public static final int MAX_COLUMNS = 20;
    /** Render parameter overriding {@link #MAX_ROWS}. */
    public static final String ROWS_PARAM = "maxRows";
    /** Render parameter overriding {@link #MAX_COLUMNS}. */
    static final String COLUMNS_PARAM = "maxColumns";

    private TableDisplay() {
    }

    /** Registers the HTML and text forms of tables with the kernel's renderer. */
    public static void register(Renderer renderer) {
        renderer.createRegistration(Table.class)
                .preferring(MIMEType.TEXT_HTML, MIMEType.TEXT_PLAIN)
                .register((table, context) -> {
                    int rows = Math.max(2, context.getParameterAsInt(ROWS_PARAM, MAX_ROWS));
                    int columns = Math.max(2, context.getParameterAsInt(COLUMNS_PARAM,
                            MAX_COLUMNS));
                    context.renderIfRequested(MIMEType.TEXT_HTML,
                            () -> html(table, rows, columns));
                    context.renderIfRequested(MIMEType.TEXT_PLAIN, () -> table.print(rows));
                });
    }

    /**
     * The table as HTML: a header of column names (with the type as a tooltip), a row number in
     * front of each row, and "…" where rows or columns are left out.
     *
     * @param maxRows rows shown at most; half from the top, half from the bottom
     * @param maxColumns columns shown at most; half from the left, half from the right
     */
    public static String html(Table table, int maxRows, int maxColumns) {
        List<Integer> rows = shown(table.rowCount(), maxRows);
        List<Integer> columns = shown(table.columnCount(), maxColumns);
        StringBuilder out = new StringBuilder("<div>\n<table class=\"dataframe\">\n");
        if (table.name() != null && !table.name().isBlank()) {
            out.append("<caption>").append(escape(table.name())).append("</caption>\n");
        }
        out.append("<thead><tr><th></th>");
        for (int c : columns) {
            if (c < 0) {
                out.append("<th>…</th>");
            } else {
                Column<?> column = table.column(c);
                out.append("<th title=\"").append(column.type().name()).append("\">")
                        .append(escape(column.name())).append("</th>");
            }
        }
        out.append("</tr></thead>\n<tbody>\n");
        for (int r : rows) {
            out.append("<tr><th>").append(r < 0 ? "…" : Integer.toString(r)).append("</th>");
            for (int c : columns) {
                String cell = r < 0 || c < 0 ? "…" : escape(table.column(c).getString(r));
                out.append("<td>").append(cell).append("</td>");
            }
            out.append("</tr>\n");
        }
        out.append("</tbody>\n</table>\n");
        if (table.rowCount() > maxRows || table.columnCount() > maxColumns) {
            out.append("<p>").append(table.rowCount()).append(" rows × ")
                    .append(table.columnCount()).append(" columns</p>\n");
        }
        return out.append("</div>").toString();
    }

    /** Indexes shown out of {@code count}: all, or the first and last halves around a -1. */
    static List<Integer> shown(int count, int max) {
        List<Integer> out = new ArrayList<>();
        if (count <= max) {
            for (int i = 0; i < count; i++) {
                out.add(i);
            }
            return out;
        }
        int head = (max + 1) / 2;
        for (int i = 0; i < head; i++) {
            out.add(i);
        }
        out.add(-1);
        for (int i = count - (max - head); i < count; i++) {
            out.add(i);
        }
        return out;
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                .replace("\"", "&quot;");
    }
}

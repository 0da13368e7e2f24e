package dev.dml.magics;

import java.util.List;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/** The display data commands show: plain text for terminals, HTML for JupyterLab. */
final class Html {

    private Html() {
    }

    /** Escapes the five characters HTML treats specially. */
    static String escape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** A message, as text and as an HTML paragraph. */
    static DisplayData text(String message) {
        return data(message, "<p>" + escape(message) + "</p>");
    }

    /** Text and its HTML rendering in one display. */
    static DisplayData data(String text, String html) {
        DisplayData data = new DisplayData(text);
        data.putHTML(html);
        return data;
    }

    /**
     * A table with a title line, as aligned text and as an HTML table.
     *
     * @param title the line above the table
     * @param header the column names
     * @param rows the cells, one list per row
     * @return both renderings
     */
    static DisplayData table(String title, List<String> header, List<List<String>> rows) {
        int[] width = new int[header.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = header.get(c).length();
            for (List<String> row : rows) {
                width[c] = Math.max(width[c], row.get(c).length());
            }
        }
        StringBuilder text = new StringBuilder(title).append('\n');
        StringBuilder html = new StringBuilder("<p>").append(escape(title))
                .append("</p><table class=\"dml-table\"><thead><tr>");
        appendRow(text, header, width);
        header.forEach(h -> html.append("<th style=\"text-align:left\">").append(escape(h))
                .append("</th>"));
        html.append("</tr></thead><tbody>");
        for (List<String> row : rows) {
            appendRow(text, row, width);
            html.append("<tr>");
            row.forEach(cell -> html.append("<td style=\"text-align:left\">")
                    .append(escape(cell)).append("</td>"));
            html.append("</tr>");
        }
        html.append("</tbody></table>");
        return data(text.toString().stripTrailing(), html.toString());
    }

    private static void appendRow(StringBuilder text, List<String> cells, int[] width) {
        text.append(' ');
        for (int c = 0; c < cells.size(); c++) {
            String cell = cells.get(c);
            text.append(' ').append(cell).append(" ".repeat(width[c] - cell.length() + 1));
        }
        text.setLength(text.length() - 1);
        text.append('\n');
    }
}

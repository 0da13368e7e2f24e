package dev.dml.cost;

import java.util.ArrayList;
import java.util.List;

/** Splits one CSV line: commas, and double quotes around a cell that holds commas. */
final class Csv {

    private Csv() {}

    static List<String> split(String line, String name, int number) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        if (quoted) {
            throw PriceCatalog.bad(name, number, "a quote is not closed");
        }
        cells.add(cell.toString());
        return cells;
    }
}

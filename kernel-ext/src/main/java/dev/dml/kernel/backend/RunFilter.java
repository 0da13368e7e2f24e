package dev.dml.kernel.backend;

import dev.dml.DmlException;
import dev.dml.Suggestions;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The condition of {@code %dml runs --where}: {@code COLUMN OP VALUE} joined by {@code and},
 * OP one of {@code > >= < <= = !=}. A number compares as a number; text only with {@code =}
 * and {@code !=}. A run without a value in the column never matches.
 */
final class RunFilter {

    private static final Pattern CONDITION = Pattern.compile(
            "\\s*([A-Za-z_][\\w.-]*)\\s*(>=|<=|!=|==|=|>|<)\\s*(.+?)\\s*");
    private static final Pattern AND = Pattern.compile("\\s+(?i:and)\\s+");
    private static final String OPERATORS = "Operators: > >= < <= = !=; join conditions with"
            + " 'and', e.g. --where 'val_accuracy > 0.9 and lr < 0.01'.";

    private record Condition(String column, String op, String text, Double number) {}

    private final List<Condition> conditions;

    private RunFilter(List<Condition> conditions) {
        this.conditions = conditions;
    }

    /**
     * Reads a condition.
     *
     * @param where what followed {@code --where}
     * @param columns the columns a condition may name
     * @return the filter
     * @throws DmlException naming the part that is wrong, in the cell's words
     */
    static RunFilter parse(String where, Collection<String> columns) {
        String condition = unquote(where);
        List<Condition> out = new ArrayList<>();
        for (String part : AND.split(condition)) {
            Matcher m = CONDITION.matcher(part);
            if (!m.matches()) {
                throw new DmlException("--where '" + DmlException.literal(condition) + "': '"
                        + DmlException.literal(part) + "' is not COLUMN OP VALUE.", OPERATORS);
            }
            String column = column(m.group(1), columns, condition);
            String op = m.group(2).equals("==") ? "=" : m.group(2);
            String text = unquote(m.group(3));
            Double number = number(text);
            if (number == null && !op.equals("=") && !op.equals("!=")) {
                throw new DmlException("--where '" + DmlException.literal(condition) + "': '" + op
                        + "' compares numbers, and '" + DmlException.literal(text)
                        + "' is not one.", "Compare text with = or !=, e.g. --where 'status ="
                        + " finished'.");
            }
            out.add(new Condition(column, op, text, number));
        }
        return new RunFilter(out);
    }

    /** The column named, with _ for - allowed ({@code batch_size}). */
    private static String column(String typed, Collection<String> columns, String where) {
        for (String c : List.of(typed, typed.replace('_', '-'), typed.replace('-', '_'))) {
            if (columns.contains(c)) {
                return c;
            }
        }
        String guess = Suggestions.closest(typed, columns).map(g -> "Did you mean '" + g
                + "'? ").orElse("");
        throw new DmlException("--where '" + DmlException.literal(where) + "': no column '"
                + DmlException.literal(typed) + "' in the runs.", guess + "Columns: "
                + String.join(", ", columns) + ".");
    }

    /** Text without the quotes a user put around it: the line keeps them. */
    static String unquote(String s) {
        String t = s.strip();
        if (t.length() >= 2 && (t.charAt(0) == '\'' || t.charAt(0) == '"')
                && t.charAt(t.length() - 1) == t.charAt(0)) {
            return t.substring(1, t.length() - 1).strip();
        }
        return t;
    }

    private static Double number(String text) {
        try {
            return Double.valueOf(text);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /**
     * Tells whether a run meets every condition.
     *
     * @param row the run's values by column: numbers as {@link Double}, others as text, null
     *     where it has none
     * @return whether it matches
     */
    boolean matches(Map<String, Object> row) {
        for (Condition c : conditions) {
            Object v = row.get(c.column());
            if (v == null) {
                return false;
            }
            Double n = v instanceof Double d ? d : number(v.toString());
            int cmp;
            if (c.number() != null && n != null) {
                cmp = Double.compare(n, c.number());
            } else if (c.number() == null || c.op().equals("=") || c.op().equals("!=")) {
                cmp = v.toString().equals(c.text()) ? 0 : 1;
            } else {
                return false; // a number asked of text
            }
            boolean ok = switch (c.op()) {
                case ">" -> cmp > 0;
                case ">=" -> cmp >= 0;
                case "<" -> cmp < 0;
                case "<=" -> cmp <= 0;
                case "=" -> cmp == 0;
                default -> cmp != 0;
            };
            if (!ok) {
                return false;
            }
        }
        return true;
    }
}

package dev.dml.kernel.jupyter;

import dev.dml.kernel.DmlKernel;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/** A Tablesaw table as a cell's value: HTML beside text, cut to a row and column limit. */
class TableDisplayTest {

    private static DmlKernel kernel;

    @BeforeAll
    static void start() {
        kernel = DmlKernel.builder().build();
        kernel.onStartup();
    }

    @AfterAll
    static void stop() {
        kernel.onShutdown(false);
    }

    @Test
    void aTableThatACellReturnsShowsAsHtmlAndText() {
        DisplayData out = kernel.eval("""
                var t = tech.tablesaw.api.Table.create("flowers",
                    tech.tablesaw.api.StringColumn.create("species", "setosa", "vir<gin>ica"),
                    tech.tablesaw.api.DoubleColumn.create("petal width", 0.2, 1.8));
                t
                """);
        String html = (String) out.getData(MIMEType.TEXT_HTML);
        String text = (String) out.getData(MIMEType.TEXT_PLAIN);
        assertTrue(html.contains("<caption>flowers</caption>"), html);
        assertTrue(html.contains("<th title=\"STRING\">species</th>"
                + "<th title=\"DOUBLE\">petal width</th>"), html);
        assertTrue(html.contains("<tr><th>1</th><td>vir&lt;gin&gt;ica</td><td>1.8</td></tr>"),
                html);
        assertEquals(2, bodyRows(html));
        assertFalse(html.contains(" rows × "), "a small table is shown whole");
        assertTrue(text.contains("vir<gin>ica") && text.contains("petal width"), text);
    }

    @Test
    void aLongTableShowsItsFirstAndLastRowsAndItsSize() {
        DisplayData out = kernel.eval("tech.tablesaw.api.Table.create(\"long\","
                + " tech.tablesaw.api.IntColumn.create(\"i\","
                + " java.util.stream.IntStream.range(0, 1000).toArray()))");
        String html = (String) out.getData(MIMEType.TEXT_HTML);
        assertEquals(TableDisplay.MAX_ROWS + 1, bodyRows(html), "20 rows and one '…' row");
        assertTrue(html.contains("<tr><th>9</th><td>9</td></tr>\n<tr><th>…</th><td>…</td></tr>\n"
                + "<tr><th>990</th><td>990</td></tr>"), html);
        assertTrue(html.contains("<tr><th>999</th><td>999</td></tr>"), html);
        assertFalse(html.contains("<td>500</td>"), html);
        assertTrue(html.contains("<p>1000 rows × 1 columns</p>"), html);
        String text = (String) out.getData(MIMEType.TEXT_PLAIN);
        assertTrue(text.lines().count() < 30, "the text is cut too:\n" + text);
    }

    @Test
    void aWideTableShowsItsFirstAndLastColumns() {
        Table wide = Table.create("pixels", IntStream.range(0, 784)
                .mapToObj(i -> DoubleColumn.create("p" + i, new double[] {i})).toList()
                .toArray(DoubleColumn[]::new));
        String html = TableDisplay.html(wide, 20, 6);
        List<String> headers = matches(Pattern.compile("<th title=\"DOUBLE\">(p\\d+)</th>"), html);
        assertEquals(List.of("p0", "p1", "p2", "p781", "p782", "p783"), headers);
        assertTrue(html.contains("<th>…</th>") && html.contains("<p>1 rows × 784 columns</p>"));
    }

    @Test
    void theRowLimitCanBeRaisedForOneTable() {
        Table t = Table.create("t", StringColumn.create("s",
                IntStream.range(0, 50).mapToObj(i -> "row" + i).toList()));
        DisplayData all = kernel.getRenderer().render(t, Map.of(TableDisplay.ROWS_PARAM, 50));
        assertEquals(50, bodyRows((String) all.getData(MIMEType.TEXT_HTML)));
        assertEquals(List.of(0, 1, -1, 8, 9), TableDisplay.shown(10, 4));
        assertEquals(List.of(0, 1, 2, -1, 8, 9), TableDisplay.shown(10, 5));
    }

    private static int bodyRows(String html) {
        String body = html.substring(html.indexOf("<tbody>"), html.indexOf("</tbody>"));
        return matches(Pattern.compile("<tr>"), body).size();
    }

    private static List<String> matches(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        List<String> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(m.groupCount() > 0 ? m.group(1) : m.group());
        }
        return out;
    }
}

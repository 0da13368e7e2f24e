package dev.dml.kernel.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.Vocabulary;
import dev.dml.magics.TrainRequest;
import dev.dml.options.Option;
import dev.dml.options.TrainOptions;
import dev.dml.ray.data.SyntheticFraud;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;

/**
 * Every error a {@code %dml train} cell can show speaks the cell's words (issue 26): the test
 * walks the train grammar's error paths, each option with each kind of bad value, alone and with
 * the options it needs beside it, given twice, misspelled and without a value, and the data's
 * error paths (no label, an unknown column, a folder, a missing file, a header-only CSV, a table
 * with no feature), and fails on any message that names a Java builder method ({@code optX},
 * {@code setX(}, {@code addX(}, {@code build()}).
 */
class CellMessagesTest {

    /** Java builder words, which mean nothing to someone who typed a magic. */
    static final Pattern BUILDER_WORDS = Pattern.compile(
            "\\b(opt[A-Z]\\w*|set[A-Z]\\w*\\(|add[A-Z]\\w*\\(|build\\(\\)|opt\\()");

    /** Values that are wrong for some option: empty, zero, negative, fractional, huge, text. */
    private static final List<String> BAD = List.of("0", "-1", "1.5", "abc", "99999999999",
            "1,0", "none", "true", "0.0", "-0.5", "a:b", "1e9");

    private final Table fraud = SyntheticFraud.generate(300, 7);
    private final NotebookData data = new NotebookData(name -> Optional.ofNullable(Map.of(
            "fraud", fraud, "text", "x", "onlylabel", Table.create("onlylabel",
                    IntColumn.create("y", 0, 1, 0)), "nocolumns", Table.create("nocolumns"))
                    .get(name)), () -> List.of("fraud", "nocolumns", "onlylabel", "text"),
            Map::of);

    /** The cell's line, and the message it showed; none when the cell was accepted. */
    private final Map<String, String> shown = new LinkedHashMap<>();

    private void cell(String line) {
        try {
            TrainRequest r = TrainRequest.parse(List.of(line.trim().split(" +")), null);
            TrainRequests.spec(r, data);
        } catch (DmlException e) {
            shown.put(line, e.speaking(Vocabulary.NOTEBOOK).getMessage());
        } catch (RuntimeException e) {
            shown.put(line, "not a DmlException: " + e);
        }
    }

    @Test
    void noCellErrorNamesAJavaBuilderMethod(@TempDir Path dir) throws Exception {
        for (Option<?> o : TrainOptions.ALL) {
            if (o == TrainOptions.CLUSTER) {
                continue; // only stored by the spec; its errors come from connecting
            }
            String label = o == TrainOptions.LABEL ? "" : " --label is_fraud";
            cell("fraud" + label + " " + o.flag() + o.flag().substring(2, 3)); // misspelled
            cell("fraud" + label + " " + (o.isSwitch() ? o.flag() + " " + o.flag()
                    : o.flag() + " " + o.example() + " " + o.flag() + " " + o.example()));
            if (!o.isSwitch()) {
                cell("fraud" + label + " " + o.flag());
                for (String v : BAD) {
                    cell("fraud" + label + " " + o.flag() + " " + v);
                    for (String with : COMPANIONS) {
                        cell("fraud" + label + with + " " + o.flag() + " " + v);
                    }
                }
            } else {
                for (String with : COMPANIONS) {
                    cell("fraud" + label + with + " " + o.flag());
                }
            }
        }
        Path folder = Files.createDirectories(dir.resolve("tables"));
        Path headerOnly = Files.writeString(dir.resolve("empty.csv"), "a,y\n");
        Path parquetless = Files.createDirectories(dir.resolve("nofiles"));
        for (String line : List.of("fraud", "fraud --label nope", "text --label y",
                dir.resolve("missing.csv") + " --label y", folder + " --label y",
                headerOnly + " --label y", "onlylabel --label y", "nocolumns --label y",
                "fraud --label is_fraud --features nope", "fraud --label is_fraud --validation"
                        + " nope", "fraud --label is_fraud --block nope", parquetless
                        + " --label y --read-on-workers", headerOnly + " --label y"
                        + " --read-on-workers", "fraud --label is_fraud --read-on-workers")) {
            cell(line);
        }
        List<String> failures = new ArrayList<>();
        shown.forEach((line, message) -> {
            Matcher m = BUILDER_WORDS.matcher(message);
            if (m.find() || message.startsWith("not a DmlException")) {
                failures.add("%dml train " + line + "\n    " + message.replace("\n", "\n    "));
            }
        });
        assertTrue(shown.size() > 500, "walked only " + shown.size() + " error paths");
        assertEquals(List.of(), failures, failures.size() + " cell messages speak Java");
    }

    /** The options some others need beside them, so that their own checks are reached. */
    private static final List<String> COMPANIONS = List.of("", " --strategy pipeline --hidden"
            + " 32,16", " --strategy hybrid --hidden 32,16", " --checkpoint-dir /nonexistent/ck",
            " --validation 0.2", " --workers 2", " --workers 2 --sync async",
            " --gpus-per-worker 1", " --model cnn", " --model mf");

    @Test
    void aFolderWithoutReadOnWorkersSaysItIsAFolderAndHowToReadIt(@TempDir Path dir)
            throws Exception {
        Path folder = Files.createDirectories(dir.resolve("parts"));
        cell(folder + " --label y");
        assertEquals("'" + folder + "', given as the data, is a folder; the kernel reads one"
                + " file.\nName one of its files, or add --read-on-workers to have the workers"
                + " read the folder's Parquet and Arrow files.", shown.get(folder + " --label y"));
    }
}

package dev.dml.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The committed option reference is the one the declarations write. */
class OptionReferenceTest {

    private static final Path PAGE = Path.of("..", "docs", "train-options.md");

    @Test
    void theCommittedPageMatchesTheDeclarations() throws IOException {
        String page = OptionReference.markdown();
        if ("true".equals(System.getenv("DML_WRITE_DOCS"))) {
            Files.writeString(PAGE, page, StandardCharsets.UTF_8);
        }
        assertTrue(Files.exists(PAGE), "missing " + PAGE.toAbsolutePath());
        assertEquals(page, Files.readString(PAGE, StandardCharsets.UTF_8),
                "docs/train-options.md is out of date: run DML_WRITE_DOCS=true mvn -pl core test");
        for (Option<?> o : TrainOptions.ALL) {
            assertTrue(page.contains("`" + o.usage().replace("|", "\\|") + "`"), o.flag());
        }
    }
}

package dev.dml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class DmlEnvTest {

    /** A DML_* name written as a string of its own: a variable read or set somewhere. */
    private static final Pattern NAME = Pattern.compile("\"DML_[A-Z_]*\"");

    @Test
    void defaultsLiveUnderTheUsersDataFolder() {
        DmlEnv env = DmlEnv.of(Map.of());
        assertEquals(Path.of("/home/ada/.local/share/dml/logs"), env.logDir(Path.of("/home/ada")));
        assertEquals("info", env.logLevel());
        assertEquals(Path.of("/home/ada/.local/share/dml/runs"), env.runsDir(Path.of("/home/ada")));
        // per user since #26 row 9: another user's cache entries are private to them
        assertEquals(Path.of("/tmp/dml-data-cache-" + System.getProperty("user.name")),
                env.dataCache(Path.of("/tmp")));
    }

    @Test
    void variablesOverrideTheDefaults() {
        DmlEnv env = DmlEnv.of(Map.of(DmlEnv.LOG_DIR, "/tmp/x", DmlEnv.LOG_LEVEL, "debug",
                DmlEnv.DATA_CACHE, "/cache", DmlEnv.RUNS_DIR, "/shared/runs"));
        assertEquals(Path.of("/tmp/x"), env.logDir(Path.of("/home/ada")));
        assertEquals(Path.of("/shared/runs"), env.runsDir(Path.of("/home/ada")));
        assertEquals("debug", env.logLevel());
        assertEquals(Path.of("/cache"), env.dataCache(Path.of("/tmp")));
    }

    @Test
    void blankCountsAsUnsetAndUnknownNamesAreRefused() {
        DmlEnv env = DmlEnv.of(Map.of(DmlEnv.LOG_LEVEL, " ", "DML_PYTORCH_FLAVOR", "cu128"));
        assertEquals("info", env.logLevel());
        assertEquals(Optional.of("cu128"), env.value("DML_PYTORCH_FLAVOR"));
        assertThrows(IllegalArgumentException.class, () -> env.value("DML_LOG_DIRS"));
    }

    @Test
    void noOtherMainClassNamesADmlVariable() throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> modules = Files.list(Path.of(".."))) {
            for (Path module : modules.toList()) {
                Path main = module.resolve("src/main/java");
                if (!Files.isDirectory(main)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(main)) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                        if (!f.endsWith(Path.of("dev/dml/DmlEnv.java"))
                                && NAME.matcher(Files.readString(f)).find()) {
                            found.add(f.toString());
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), found, "DML_* variables are named in DmlEnv only");
    }
}

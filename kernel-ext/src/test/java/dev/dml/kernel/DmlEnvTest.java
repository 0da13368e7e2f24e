package dev.dml.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DmlEnvTest {

    @Test
    void defaultsLiveUnderTheUsersDataFolder() {
        DmlEnv env = DmlEnv.from(Map.of(), Path.of("/home/ada"));
        assertEquals(Path.of("/home/ada/.local/share/dml/logs"), env.logDir());
        assertEquals("info", env.logLevel());
    }

    @Test
    void variablesOverrideTheDefaults() {
        DmlEnv env = DmlEnv.from(Map.of(DmlEnv.LOG_DIR, "/tmp/x", DmlEnv.LOG_LEVEL, "debug"),
                Path.of("/home/ada"));
        assertEquals(Path.of("/tmp/x"), env.logDir());
        assertEquals("debug", env.logLevel());
    }
}

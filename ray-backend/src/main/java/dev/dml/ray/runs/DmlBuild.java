package dev.dml.ray.runs;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The dml version and git commit this code was built from, as each run records them. */
final class DmlBuild {

    /** The version, e.g. {@code 0.1.0-SNAPSHOT}; {@code unknown} outside a Maven build. */
    static final String VERSION;
    /** The commit bin/install built from; null when the build did not know it. */
    static final String COMMIT;

    static {
        Properties p = new Properties();
        try (InputStream in = DmlBuild.class.getResourceAsStream("dml-build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // an unreadable resource in our own jar: record the version as unknown
        }
        VERSION = known(p.getProperty("version"), "unknown");
        COMMIT = known(p.getProperty("commit"), null);
    }

    private DmlBuild() {}

    /** A filtered value, or the fallback where Maven left it blank or unreplaced. */
    private static String known(String v, String fallback) {
        return v == null || v.isBlank() || v.startsWith("${") ? fallback : v.strip();
    }
}

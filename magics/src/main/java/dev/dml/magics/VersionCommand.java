package dev.dml.magics;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Properties;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/** {@code %dml version}: dml's version and the versions it runs on. */
final class VersionCommand extends NamedCommand {

    private static final String NAME = "version";
    private static final String USAGE = "%dml version";

    private final CommandArgs args = new CommandArgs(NAME,
            MagicsArgs.builder().onlyKnownKeywords().onlyKnownFlags().build(), USAGE);

    VersionCommand() {
        super(NAME, "show the versions of dml, Java and the kernel");
    }

    @Override
    public List<String> usage() {
        return List.of(USAGE);
    }

    @Override
    public Object run(CommandContext context, List<String> words, String body) {
        args.parse(words);
        String text = "dml " + dmlVersion()
                + "\nJava " + Runtime.version()
                + " (" + System.getProperty("java.vm.name") + ")"
                + "\nkernel " + context.kernelDescription()
                + "\njjava-jupyter " + jjavaVersion();
        context.display(new DisplayData(text));
        return text;
    }

    /** dml's version, written into the jar at build time. */
    static String dmlVersion() {
        String v = mavenVersion(VersionCommand.class, "dml-version.properties");
        if (v == null) {
            throw new IllegalStateException("dml-version.properties is missing from the jar");
        }
        return v;
    }

    /** jjava-jupyter's version, from the Maven metadata inside its jar. */
    private static String jjavaVersion() {
        String v = mavenVersion(BaseKernel.class,
                "/META-INF/maven/org.dflib.jjava/jjava-jupyter/pom.properties");
        return v != null ? v : "(version not recorded in its jar)";
    }

    private static String mavenVersion(Class<?> owner, String resource) {
        Properties props = new Properties();
        try (InputStream in = owner.getResourceAsStream(resource)) {
            if (in == null) {
                return null;
            }
            props.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return props.getProperty("version");
    }
}

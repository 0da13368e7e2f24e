package dev.dml.kernel.maven;

import dev.dml.DmlException;
import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;

/**
 * {@code %maven GROUP:ARTIFACT:VERSION ...}: resolves the artifacts and their runtime
 * dependencies with Maven and adds the jars to what later cells compile and run against, as
 * JJava's and IJava's {@code %maven} do.
 */
public final class MavenMagic implements LineMagic<List<String>, BaseKernel> {

    private final BaseKernel kernel;
    /** Adds one jar to what cells see. */
    private final Consumer<String> classpath;
    private final MavenResolver resolver;
    /**
     * File names of the jars cells already see: the kernel's own (copies of Maven's, with the
     * same names) and earlier {@code %maven} ones. Adding one again would change nothing.
     */
    private final Set<String> present = new HashSet<>();

    public MavenMagic(BaseKernel kernel, Consumer<String> classpath, MavenResolver resolver,
            String kernelClassPath) {
        this.kernel = kernel;
        this.classpath = classpath;
        this.resolver = resolver;
        for (String entry : kernelClassPath.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                present.add(Path.of(entry).getFileName().toString());
            }
        }
    }

    public void register(MagicsRegistry registry) {
        registry.registerLineMagic("maven", this);
    }

    /**
     * Resolves and adds the artifacts.
     *
     * Shows one line naming the jars added, and returns them for {@code var jars = %maven ...}.
     *
     * @return the file names of the jars added; jars the cells already saw are left out
     */
    @Override
    public synchronized List<String> eval(BaseKernel ignored, List<String> args) {
        if (args.isEmpty()) {
            throw new DmlException("%maven needs at least one artifact.",
                    "Write GROUP:ARTIFACT:VERSION, as in %maven"
                            + " org.apache.commons:commons-text:1.12.0");
        }
        for (String arg : args) {
            if (arg.startsWith("-")) {
                throw new DmlException("%maven takes no option '" + DmlException.literal(arg)
                        + "', only artifacts.", "Write GROUP:ARTIFACT:VERSION; add other"
                        + " repositories to ~/.m2/settings.xml.");
            }
        }
        List<String> added = new ArrayList<>();
        List<Path> jars = resolver.resolve(args);
        for (Path jar : jars) {
            if (present.add(jar.getFileName().toString())) {
                classpath.accept(jar.toString());
                added.add(jar.getFileName().toString());
            }
        }
        kernel.display(new DisplayData(added.isEmpty()
                ? "%maven: the cells already see all " + jars.size() + " jars"
                : "%maven added " + added.size() + (added.size() == 1 ? " jar: " : " jars: ")
                        + String.join(", ", added)));
        return added;
    }
}

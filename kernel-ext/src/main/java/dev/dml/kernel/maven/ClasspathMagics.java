package dev.dml.kernel.maven;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.util.PathsHandler;

/**
 * JJava's {@code %jars} and {@code %classpath}: add jars (globs allowed) or folders to what
 * cells compile and run against, and load any Extension they declare.
 */
public final class ClasspathMagics implements LineMagic<List<String>, BaseKernel> {

    /** Adds one path to what cells see: the kernel's, passed in so this package needs no kernel. */
    private final Consumer<String> classpath;

    public ClasspathMagics(Consumer<String> classpath) {
        this.classpath = classpath;
    }

    public void register(MagicsRegistry registry) {
        registry.registerLineMagic("jars", this);
        registry.registerLineMagic("classpath", this);
    }

    @Override
    public List<String> eval(BaseKernel ignored, List<String> args) {
        if (args.isEmpty()) {
            throw new IllegalArgumentException(
                    "give at least one path: %jars lib/*.jar  or  %classpath build/classes");
        }
        List<String> added = new ArrayList<>();
        for (String arg : args) {
            List<Path> paths = PathsHandler.resolveGlobs(arg);
            if (paths.isEmpty()) {
                throw new IllegalArgumentException("nothing matches '" + arg
                        + "' (relative paths start at " + Path.of("").toAbsolutePath() + ")");
            }
            for (Path path : paths) {
                classpath.accept(path.toAbsolutePath().toString());
                added.add(path.toString());
            }
        }
        return added;
    }
}

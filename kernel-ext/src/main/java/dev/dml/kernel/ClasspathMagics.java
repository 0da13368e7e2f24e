package dev.dml.kernel;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.util.PathsHandler;

/**
 * JJava's {@code %jars} and {@code %classpath}: add jars (globs allowed) or folders to what
 * cells compile and run against, and load any Extension they declare.
 */
final class ClasspathMagics implements LineMagic<List<String>, BaseKernel> {

    private final DmlKernel kernel;

    ClasspathMagics(DmlKernel kernel) {
        this.kernel = kernel;
    }

    void register(MagicsRegistry registry) {
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
                kernel.addToClasspath(path.toAbsolutePath().toString());
                added.add(path.toString());
            }
        }
        return added;
    }
}

package dev.dml.kernel.maven;

import dev.dml.DmlException;
import eu.maveniverse.maven.mima.context.Context;
import eu.maveniverse.maven.mima.context.ContextOverrides;
import eu.maveniverse.maven.mima.context.Runtimes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.collection.CollectRequest;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.resolution.ArtifactResult;
import org.eclipse.aether.resolution.DependencyRequest;
import org.eclipse.aether.resolution.DependencyResolutionException;
import org.eclipse.aether.transfer.ArtifactTransferException;
import org.eclipse.aether.util.artifact.JavaScopes;
import org.eclipse.aether.util.filter.DependencyFilterUtils;

/**
 * Resolves Maven coordinates to jar files, with their runtime dependencies, through Maven's own
 * resolver (MIMA, as JJava's {@code %maven} does). It honours {@code ~/.m2/settings.xml}
 * (mirrors, proxies, offline) and downloads into the local repository, {@code ~/.m2/repository}.
 */
public final class MavenResolver {

    private final ContextOverrides overrides;

    /**
     * A resolver with fixed settings; tests pass a local repository and offline mode.
     *
     * @param overrides what MIMA uses instead of the user's defaults
     */
    MavenResolver(ContextOverrides overrides) {
        this.overrides = overrides;
    }

    /** A resolver as Maven on this machine: the user's settings, Maven Central by default. */
    public static MavenResolver fromUserSettings() {
        return new MavenResolver(ContextOverrides.create().withUserSettings(true).build());
    }

    /**
     * Resolves all coordinates together, so that Maven settles version conflicts among them
     * once, as in one pom.
     *
     * @param coordinates each {@code GROUP:ARTIFACT:VERSION} (or with extension and classifier)
     * @return the jars of the artifacts and their runtime dependencies, requested ones first
     * @throws DmlException naming the coordinates that are malformed or cannot be resolved
     */
    List<Path> resolve(List<String> coordinates) {
        CollectRequest collect = new CollectRequest();
        for (String c : coordinates) {
            collect.addDependency(new Dependency(artifact(c), JavaScopes.RUNTIME));
        }
        DependencyRequest request = new DependencyRequest(collect,
                DependencyFilterUtils.classpathFilter(JavaScopes.RUNTIME));
        try (Context context = Runtimes.INSTANCE.getRuntime().create(overrides)) {
            collect.setRepositories(context.remoteRepositories());
            List<Path> jars = new ArrayList<>();
            for (ArtifactResult result : context.repositorySystem()
                    .resolveDependencies(context.repositorySystemSession(), request)
                    .getArtifactResults()) {
                if (result.getArtifact() != null && result.getArtifact().getFile() != null
                        && "jar".equals(result.getArtifact().getExtension())) {
                    jars.add(result.getArtifact().getFile().toPath().toAbsolutePath());
                }
            }
            return jars;
        } catch (DependencyResolutionException e) {
            throw new DmlException("Maven could not resolve " + DmlException.literal(
                    String.join(" ", coordinates)) + ": " + DmlException.literal(reason(e)),
                    "Check the coordinates (search.maven.org lists each artifact's versions),"
                            + " and the repositories and proxy in ~/.m2/settings.xml.", e);
        }
    }

    private static DefaultArtifact artifact(String coordinates) {
        try {
            return new DefaultArtifact(coordinates);
        } catch (IllegalArgumentException e) {
            throw new DmlException("'" + DmlException.literal(coordinates)
                    + "' is not a Maven artifact.",
                    "Write GROUP:ARTIFACT:VERSION, as in %maven"
                            + " org.apache.commons:commons-text:1.12.0");
        }
    }

    /**
     * The line that names the artifact and where it was sought ("Could not find artifact
     * demo:missing:jar:2.0 in central (...)"), else the first line of Maven's own message.
     */
    private static String reason(Throwable e) {
        for (Throwable t = e; t != null && t != t.getCause(); t = t.getCause()) {
            if (t instanceof ArtifactTransferException && t.getMessage() != null) {
                return firstLine(t.getMessage());
            }
        }
        return e.getMessage() == null ? e.toString() : firstLine(e.getMessage());
    }

    private static String firstLine(String text) {
        return text.lines().findFirst().orElse(text).strip();
    }
}

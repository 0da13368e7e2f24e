/**
 * The magics that add jars to what cells see: {@code %maven} ({@link
 * dev.dml.kernel.maven.MavenMagic}, resolving with {@link dev.dml.kernel.maven.MavenResolver})
 * and {@code %jars} / {@code %classpath} ({@link dev.dml.kernel.maven.ClasspathMagics}).
 *
 * <p>The kernel passes in how to add a path to the classpath, so this package does not depend
 * on it.
 */
package dev.dml.kernel.maven;

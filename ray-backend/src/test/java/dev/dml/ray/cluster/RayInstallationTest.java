package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Detection against fake {@code ray} and {@code python} scripts, so no Ray is needed. */
class RayInstallationTest {

    @TempDir
    Path dir;

    private Path script(String name, String body) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    /** A fake Python that reports a Ray version and a package folder. */
    private ClusterSpec.Builder fake(String version, Path pkg) throws IOException {
        Path ray = script("ray", "exit 0");
        Path python = script("python", "echo " + version + "; echo " + pkg);
        return ClusterSpec.builder().optRayCommand(ray.toString()).optPython(python.toString());
    }

    @Test
    void missingRayCommandSaysHowToInstall() {
        ClusterSpec spec = ClusterSpec.builder().optRayCommand("dml-no-such-ray").build();
        DmlException e = assertThrows(DmlException.class, () -> RayInstallation.detect(spec));
        assertEquals("Ray is not installed: no `dml-no-such-ray` command on PATH.\n"
                + "Run `pip install ray==2.58.0`, then try again.", e.getMessage());
    }

    @Test
    void versionMismatchNamesBothVersions() throws IOException {
        ClusterSpec spec = fake("2.57.0", dir).build();
        DmlException e = assertThrows(DmlException.class, () -> RayInstallation.detect(spec));
        assertEquals("Ray 2.57.0 is installed (for " + dir.resolve("python") + "), but dml needs"
                + " Ray 2.58.0: the Java runtime must match the cluster's.", e.what());
        assertEquals("Run `pip install ray==2.58.0`, then try again.", e.hint());
    }

    @Test
    void missingJarIsReported() throws IOException {
        ClusterSpec spec = fake("2.58.0", dir).build();
        DmlException e = assertThrows(DmlException.class, () -> RayInstallation.detect(spec));
        assertEquals("Ray 2.58.0 has no Java runtime: " + dir.resolve("jars/ray_dist.jar")
                + " is missing.", e.what());
    }

    @Test
    void pythonWithoutRayIsReported() throws IOException {
        Path python = script("python3", "echo \"ModuleNotFoundError: No module named 'ray'\";"
                + " exit 1");
        ClusterSpec spec = ClusterSpec.builder().optRayCommand(script("ray", "").toString())
                .optPython(python.toString()).build();
        DmlException e = assertThrows(DmlException.class, () -> RayInstallation.detect(spec));
        assertEquals("Ray is not installed for " + python
                + " (ModuleNotFoundError: No module named 'ray').", e.what());
    }

    @Test
    void findsTheJarOfAMatchingInstallation() throws IOException {
        Files.createDirectories(dir.resolve("jars"));
        Files.writeString(dir.resolve("jars/ray_dist.jar"), "");
        RayInstallation ray = RayInstallation.detect(fake("2.58.0", dir).build());
        assertEquals(dir.resolve("jars/ray_dist.jar"), ray.rayDistJar());
        assertEquals("2.58.0", ray.version());
    }

    @Test
    void interpreterComesFromTheShebang() throws IOException {
        Path venv = dir.resolve("venv-ray");
        Files.writeString(venv, "#!/opt/venv/bin/python3.11\nimport sys\n");
        assertEquals("/opt/venv/bin/python3.11", RayInstallation.interpreterOf(venv));
        Path env = dir.resolve("env-ray");
        Files.writeString(env, "#!/usr/bin/env python3\n");
        assertEquals("python3", RayInstallation.interpreterOf(env));
        Path shim = dir.resolve("shim-ray");
        Files.writeString(shim, "#!/usr/bin/env bash\nexec pyenv exec ray\n");
        assertEquals("python3", RayInstallation.interpreterOf(shim));
    }
}

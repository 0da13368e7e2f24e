package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code ray start} command line of the embedded head, against a fake installation. */
class EmbeddedHeadTest {

    @TempDir
    Path dir;

    private RayInstallation fakeRay() throws IOException {
        Files.createDirectories(dir.resolve("jars"));
        Files.writeString(dir.resolve("jars/ray_dist.jar"), "");
        Path ray = dir.resolve("ray");
        Path python = dir.resolve("python");
        Files.writeString(ray, "#!/bin/sh\n");
        Files.writeString(python, "#!/bin/sh\necho 2.58.0; echo " + dir + "\n");
        for (Path p : List.of(ray, python)) {
            Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return RayInstallation.detect(ClusterSpec.builder().optRayCommand(ray.toString())
                .optPython(python.toString()).build());
    }

    @Test
    void cpusAndObjectStoreComeFromTheEnvironmentUnlessTheSpecSetsThem() throws IOException {
        RayInstallation ray = fakeRay();
        ClusterEnv env = ClusterEnv.from(Map.of("DML_RAY_CPUS", "2",
                "DML_RAY_OBJECT_STORE", "100m"));
        List<String> fromEnv = EmbeddedHead.command(ray, ClusterSpec.defaults(), env, dir);
        assertTrue(fromEnv.contains("--num-cpus=2"), fromEnv.toString());
        assertTrue(fromEnv.contains("--object-store-memory=104857600"), fromEnv.toString());
        assertTrue(fromEnv.contains("--no-monitor"), fromEnv.toString());

        ClusterSpec spec = ClusterSpec.builder().optNumCpus(3).optObjectStoreBytes(90L << 20)
                .build();
        List<String> fromSpec = EmbeddedHead.command(ray, spec, env, dir);
        assertTrue(fromSpec.contains("--num-cpus=3"), fromSpec.toString());
        assertTrue(fromSpec.contains("--object-store-memory=94371840"), fromSpec.toString());

        List<String> unset = EmbeddedHead.command(ray, ClusterSpec.defaults(),
                ClusterEnv.from(Map.of()), dir);
        assertEquals(List.of(), unset.stream()
                .filter(a -> a.startsWith("--num-cpus") || a.startsWith("--object-store")
                        || a.startsWith("--num-gpus"))
                .toList());
        assertTrue(EmbeddedHead.command(ray, ClusterSpec.builder().optNumGpus(1).build(), env,
                dir).contains("--num-gpus=1"));
    }

    @Test
    void rayStartRunsThroughTheLauncherInTheHeadsFolder() throws IOException {
        RayInstallation ray = fakeRay();
        List<String> cmd = EmbeddedHead.command(ray, ClusterSpec.defaults(),
                ClusterEnv.from(Map.of()), dir);
        assertEquals(List.of(ray.python(), dir.resolve("embedded_head.py").toString(), "start",
                "--head", "--block"), cmd.subList(0, 5));
        assertTrue(cmd.contains("--include-dashboard=false"), cmd.toString());
    }

    @Test
    void driverOptionsFromTheEnvironmentComeFirstSoTheSpecsWin() {
        DriverSpec spec = DriverSpec.builder().addJvmOption("-Xmx1g").build();
        DriverSpec launched = spec.withJvmOptionsFirst(
                ClusterEnv.from(Map.of("DML_DRIVER_HEAP", "128m")).driverJvmOptions());
        assertEquals(List.of("-Xmx128m", "-Xmx1g"), launched.jvmOptions());
        assertEquals(spec.callTimeout(), launched.callTimeout());
        assertEquals(spec, spec.withJvmOptionsFirst(List.of()));
    }
}

package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.dml.DmlException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterEnvTest {

    @Test
    void unsetLeavesEveryChoiceToRayAndTheJvm() {
        ClusterEnv env = ClusterEnv.from(Map.of("DML_WORKER_HEAP", " "));
        assertEquals(0, env.rayCpus());
        assertEquals(0, env.objectStoreBytes());
        assertEquals(List.of(), env.driverJvmOptions());
        assertEquals(List.of(), env.workerJvmOptions());
    }

    @Test
    void readsEachSetting() {
        ClusterEnv env = ClusterEnv.from(Map.of("DML_RAY_CPUS", "2", "DML_RAY_OBJECT_STORE", "1g",
                "DML_DRIVER_HEAP", "128m", "DML_WORKER_HEAP", "262144k"));
        assertEquals(2, env.rayCpus());
        assertEquals(1L << 30, env.objectStoreBytes());
        assertEquals(List.of("-Xmx128m"), env.driverJvmOptions());
        assertEquals(List.of("-Xmx262144k"), env.workerJvmOptions());
        assertEquals(100L << 20, ClusterEnv.from(Map.of("DML_RAY_OBJECT_STORE", "104857600"))
                .objectStoreBytes());
    }

    @Test
    void jvmOptionsFollowTheHeapOfTheDriverAndOfEveryWorker() {
        ClusterEnv env = ClusterEnv.from(Map.of("DML_DRIVER_HEAP", "128m",
                "DML_JVM_OPTIONS", " -XX:+UseSerialGC   -XX:TieredStopAtLevel=1 "));
        assertEquals(List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                env.driverJvmOptions());
        assertEquals(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
                env.workerJvmOptions());
    }

    @Test
    void badValuesNameTheVariableAndTheFix() {
        assertEquals("DML_WORKER_HEAP=256 MB is not a size.\n"
                + "Set it to a size such as 256m (digits, then k, m or g), or unset it.",
                error("DML_WORKER_HEAP", "256 MB"));
        assertEquals("DML_RAY_CPUS=1.5 is not a CPU count.\n"
                + "Set it to a whole number of CPUs, such as 2, or unset it.",
                error("DML_RAY_CPUS", "1.5"));
        assertEquals("DML_RAY_CPUS=0 is not a CPU count.\n"
                + "Set it to a whole number of CPUs, such as 2, or unset it.",
                error("DML_RAY_CPUS", "0"));
        assertEquals("DML_RAY_OBJECT_STORE=50m is below the least it can be, 80m.\n"
                + "Set it to 80m or more, or unset it.", error("DML_RAY_OBJECT_STORE", "50m"));
        assertEquals("DML_DRIVER_HEAP=8m is below the least it can be, 16m.\n"
                + "Set it to 16m or more, or unset it.", error("DML_DRIVER_HEAP", "8m"));
        assertEquals("DML_DRIVER_HEAP=-Xmx1g is not a size.\n"
                + "Set it to a size such as 128m (digits, then k, m or g), or unset it.",
                error("DML_DRIVER_HEAP", "-Xmx1g"));
        assertEquals("DML_JVM_OPTIONS=-XX:+UseSerialGC Xss512k has Xss512k, which is not a JVM"
                + " option.\nWrite java's options separated by spaces, such as -XX:+UseSerialGC,"
                + " or unset it.", error("DML_JVM_OPTIONS", "-XX:+UseSerialGC Xss512k"));
    }

    private static String error(String name, String value) {
        return assertThrows(DmlException.class, () -> ClusterEnv.from(Map.of(name, value)))
                .getMessage();
    }
}

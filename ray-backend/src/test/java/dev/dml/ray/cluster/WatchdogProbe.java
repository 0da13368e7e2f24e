package dev.dml.ray.cluster;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A JVM that owns a stand-in head (a {@code sleep} in its own session) and its temporary
 * folder, as a kernel owns its embedded head; {@link ProcessesTest} kills it with SIGKILL.
 * Prints the head's pid and the folder, then waits to be killed.
 */
final class WatchdogProbe {

    private WatchdogProbe() {}

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory(Path.of(args[0]), "dml-ray-");
        Files.writeString(dir.resolve("session.log"), "a head's session files");
        var cmd = new java.util.ArrayList<>(Processes.newSessionPrefix());
        cmd.addAll(java.util.List.of("sleep", "300"));
        Process head = new ProcessBuilder(cmd).start();
        Processes.stopWhenThisJvmDies(head.toHandle(), dir);
        System.out.println(head.pid() + " " + dir);
        System.out.flush();
        Thread.sleep(300_000);
    }
}

package dev.dml.ray.cluster;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Small helpers for the processes dml starts: lookup, short commands, tree kill, log tails. */
final class Processes {

    private Processes() {}

    /** The output and exit code of a finished command. */
    record Result(int exitCode, String output) {}

    /**
     * Finds an executable: a path is checked as is, a bare name is looked up on {@code PATH}.
     *
     * @return the executable, or {@code null} when there is none
     */
    static Path findExecutable(String command) {
        if (command.indexOf('/') >= 0) {
            Path p = Path.of(command);
            return Files.isRegularFile(p) && Files.isExecutable(p) ? p : null;
        }
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(":")) {
            if (dir.isEmpty()) {
                continue;
            }
            Path p = Path.of(dir, command);
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /**
     * Runs a short command, stdout and stderr together, and waits for it.
     *
     * @throws IOException when it cannot start or does not finish in time (it is then killed)
     */
    static Result run(List<String> command, Duration timeout) throws IOException {
        return run(command, "", timeout);
    }

    /**
     * Runs a short command with {@code input} on its stdin, stdout and stderr together, and
     * waits for it.
     *
     * @throws IOException when it cannot start or does not finish in time (it is then killed)
     */
    static Result run(List<String> command, String input, Duration timeout) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(input.getBytes(StandardCharsets.UTF_8));
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> copy(p.getInputStream(), out), "dml-cmd-output");
        reader.setDaemon(true);
        reader.start();
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                throw new IOException(
                        "`" + String.join(" ", command) + "` did not finish within "
                                + timeout.toSeconds() + " s");
            }
            reader.join(2000);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + command.get(0), e);
        }
        synchronized (out) {
            return new Result(p.exitValue(), out.toString(StandardCharsets.UTF_8));
        }
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        byte[] buf = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buf)) > 0) {
                synchronized (out) {
                    out.write(buf, 0, n);
                }
            }
        } catch (IOException e) {
            // the process ended; what was read is kept
        }
    }

    /**
     * Returns {@code setsid} when the machine has it, so that a child gets its own session and
     * a signal to the caller's process group (a terminal Ctrl-C) does not reach it.
     */
    static List<String> newSessionPrefix() {
        Path setsid = findExecutable("setsid");
        return setsid == null ? List.of() : List.of(setsid.toString());
    }

    /**
     * Starts a watchdog that stops {@code head}'s process group once this JVM is gone, however
     * it ended, and then deletes the head's temporary folder: a JVM killed with SIGKILL runs no
     * shutdown hook, and neither its head nor the head's session files (about 40 MB each) may
     * outlive it. The watchdog ends by itself when the head ends first (a normal close, which
     * deletes the folder itself).
     *
     * @param head the root of a process group started with {@link #newSessionPrefix()}
     * @param tempDir the head's temporary folder
     */
    static void stopWhenThisJvmDies(ProcessHandle head, Path tempDir) {
        long owner = ProcessHandle.current().pid();
        String target = newSessionPrefix().isEmpty() ? Long.toString(head.pid())
                : "-" + head.pid(); // the group; dash's kill takes no "--"
        String script = "while kill -0 " + owner + " 2>/dev/null; do sleep 1;"
                + " kill -0 " + head.pid() + " 2>/dev/null || exit 0; done;"
                + " kill -TERM " + target + " 2>/dev/null; i=0;"
                + " while kill -0 " + target + " 2>/dev/null && [ $i -lt 10 ]; do sleep 1;"
                + " i=$((i+1)); done; kill -KILL " + target + " 2>/dev/null; rm -rf -- \"$1\"";
        List<String> cmd = new ArrayList<>(newSessionPrefix());
        // the folder is the script's $1, so no quoting of the path is needed
        cmd.addAll(List.of("sh", "-c", script, "dml-head-watchdog", tempDir.toString()));
        try {
            new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File(
                    "/dev/null"))).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            org.slf4j.LoggerFactory.getLogger(Processes.class).warn(
                    "cannot start the watchdog of Ray head {}: {}", head.pid(), e.toString());
        }
    }

    /**
     * Ends a process and everything under it: SIGTERM to the root, then SIGKILL to whatever of
     * the tree (as it was before the SIGTERM) is still alive after {@code grace}.
     *
     * @return the processes of the tree that were still alive at the end (normally none)
     */
    static List<ProcessHandle> killTree(ProcessHandle root, Duration grace) {
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(root);
        root.descendants().forEach(tree::add);
        root.destroy();
        awaitExit(tree, grace);
        for (ProcessHandle h : tree) {
            h.descendants().forEach(d -> {
                if (!tree.contains(d)) {
                    tree.add(d);
                }
            });
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        awaitExit(tree, Duration.ofSeconds(5));
        return tree.stream().filter(ProcessHandle::isAlive).collect(Collectors.toList());
    }

    /** Waits until every process has exited or the time is up. */
    static boolean awaitExit(List<ProcessHandle> processes, Duration timeout) {
        return poll(System.nanoTime() + timeout.toNanos(), Duration.ofMillis(50),
                () -> processes.stream().noneMatch(ProcessHandle::isAlive));
    }

    /**
     * Asks {@code done} every {@code every} until it says yes or the deadline passes.
     *
     * @param deadline a {@link System#nanoTime()} value
     * @param every the pause between two asks
     * @param done the condition
     * @return {@code true} once {@code done} holds, its last answer at the deadline, or
     *     {@code false} when the thread is interrupted (its interrupt flag set again)
     */
    static boolean poll(long deadline, Duration every, BooleanSupplier done) {
        while (System.nanoTime() < deadline) {
            if (done.getAsBoolean()) {
                return true;
            }
            try {
                Thread.sleep(every.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return done.getAsBoolean();
    }

    /**
     * Removes a shutdown hook once its owner has closed by itself.
     *
     * @param hook the hook
     */
    static void removeShutdownHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down and runs the hook itself
        }
    }

    /** Formats a timeout for a message: {@code 300 ms}, {@code 30 s}. */
    static String describe(Duration d) {
        return d.toMillis() < 1000 ? d.toMillis() + " ms" : d.toSeconds() + " s";
    }

    /** Returns the last lines of a log file, or an empty string when it cannot be read. */
    static String tail(Path log, int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "";
        }
    }

    /** Deletes a folder tree; what cannot be deleted is left. */
    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // best effort: a socket or a file still open elsewhere stays
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // best effort
        }
    }
}

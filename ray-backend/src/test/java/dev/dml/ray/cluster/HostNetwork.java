package dev.dml.ray.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The host side of {@link NamespacedCluster}: the {@code ip} commands that make and remove its
 * bridge, namespaces and veth pairs, and the clean-up of what an earlier run left. Every name
 * starts with {@link #PREFIX} and every address lies in {@link #SUBNET}{@code 0/24}, so nothing
 * here touches another user's links, namespaces or processes.
 */
final class HostNetwork {

    /** The prefix of every namespace, link and folder the fixture makes. */
    static final String PREFIX = "dml12-";
    /** The fixture's subnet, without its last byte. */
    static final String SUBNET = "10.77.12.";
    /** The bridge every node's veth joins; it holds the head's address. */
    static final String BRIDGE = PREFIX + "br";
    /** The head's address: on the bridge, in the host's network namespace. */
    static final String HEAD_IP = SUBNET + "1";

    private HostNetwork() {}

    /**
     * Says why the fixture cannot run here, or nothing when it can: it needs root, {@code ip}
     * and {@code unshare}, and a namespace it can make and remove.
     *
     * @return the reason, or empty
     */
    static Optional<String> unavailable() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("not root (network and mount namespaces need it)");
        }
        for (String tool : List.of("ip", "unshare", "setsid")) {
            if (Processes.findExecutable(tool) == null) {
                return Optional.of("no `" + tool + "` command");
            }
        }
        String probe = PREFIX + "probe";
        try {
            run("ip", "netns", "add", probe);
            run("ip", "netns", "exec", probe, "unshare", "-m", "--propagation", "private",
                    "true");
        } catch (IOException e) {
            return Optional.of("cannot make a namespace: " + e.getMessage());
        } finally {
            quietly("ip", "netns", "del", probe);
        }
        return Optional.empty();
    }

    /** Makes the bridge with the head's address. */
    static void createBridge() throws IOException {
        run("ip", "link", "add", BRIDGE, "type", "bridge");
        run("ip", "addr", "add", HEAD_IP + "/24", "dev", BRIDGE);
        run("ip", "link", "set", BRIDGE, "up");
    }

    /**
     * Makes a node's network namespace, with a veth pair whose host end joins the bridge and
     * whose other end, {@code eth0} in the namespace, has {@code ip}. The namespace has no
     * default route: it reaches the fixture's subnet and nothing else.
     */
    static void createNamespace(String name, int index, String ip) throws IOException {
        String host = PREFIX + "v" + index;
        String peer = PREFIX + "p" + index;
        run("ip", "netns", "add", name);
        run("ip", "link", "add", host, "type", "veth", "peer", "name", peer);
        run("ip", "link", "set", peer, "netns", name);
        run("ip", "link", "set", host, "master", BRIDGE);
        run("ip", "link", "set", host, "up");
        run("ip", "netns", "exec", name, "ip", "link", "set", peer, "name", "eth0");
        run("ip", "netns", "exec", name, "ip", "addr", "add", ip + "/24", "dev", "eth0");
        run("ip", "netns", "exec", name, "ip", "link", "set", "eth0", "up");
        run("ip", "netns", "exec", name, "ip", "link", "set", "lo", "up");
    }

    /**
     * Ends every process in a namespace (they outlive {@code ip netns del}), then deletes the
     * namespace and the host end of its veth pair.
     */
    static void deleteNamespace(String name, int index) {
        killAll(pidsIn(name));
        quietly("ip", "netns", "del", name);
        quietly("ip", "link", "del", PREFIX + "v" + index);
    }

    /** The processes in a network namespace. */
    static List<ProcessHandle> pidsIn(String namespace) {
        List<ProcessHandle> out = new ArrayList<>();
        try {
            for (String line : run("ip", "netns", "pids", namespace).lines().toList()) {
                if (!line.isBlank()) {
                    ProcessHandle.of(Long.parseLong(line.trim())).ifPresent(out::add);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no such namespace: nothing runs there
        }
        return out;
    }

    /** SIGTERM, then SIGKILL after 10 s to whatever still runs. */
    static void killAll(List<ProcessHandle> processes) {
        processes.forEach(ProcessHandle::destroy);
        if (!Processes.awaitExit(processes, Duration.ofSeconds(10))) {
            processes.stream().filter(ProcessHandle::isAlive)
                    .forEach(ProcessHandle::destroyForcibly);
            Processes.awaitExit(processes, Duration.ofSeconds(5));
        }
    }

    /**
     * Removes what an earlier run left, crashed or killed: processes whose command line names a
     * fixture folder or the head's address, every namespace and link with the prefix, and the
     * fixture folders. Only the holder of the fixture's lock calls it, so no live fixture is hit.
     */
    static void removeLeftovers(Path tempRoot) {
        List<ProcessHandle> stale = ProcessHandle.allProcesses().filter(p -> {
            String cmd = commandLine(p);
            return cmd.contains(tempRoot.resolve(PREFIX + "cluster-").toString())
                    || cmd.contains("--node-ip-address=" + HEAD_IP + " ")
                    || cmd.endsWith("--node-ip-address=" + HEAD_IP);
        }).toList();
        killAll(stale);
        try {
            for (String line : run("ip", "netns", "list").lines().toList()) {
                String ns = line.trim().split("\\s+")[0];
                if (ns.startsWith(PREFIX)) {
                    killAll(pidsIn(ns));
                    quietly("ip", "netns", "del", ns);
                }
            }
            for (String line : run("ip", "-o", "link", "show").lines().toList()) {
                String[] parts = line.split(":\\s+");
                String link = parts.length > 1 ? parts[1].split("@")[0].trim() : "";
                if (link.startsWith(PREFIX)) {
                    quietly("ip", "link", "del", link);
                }
            }
        } catch (IOException e) {
            // nothing to list: nothing left
        }
        try (Stream<Path> s = Files.list(tempRoot)) {
            s.filter(p -> p.getFileName().toString().startsWith(PREFIX + "cluster-"))
                    .forEach(Processes::deleteTree);
        } catch (IOException e) {
            // no temp root
        }
    }

    /** A process's command line, arguments separated by spaces; empty when unreadable. */
    static String commandLine(ProcessHandle p) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline"));
            return new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').trim();
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    /** Runs a command; its output, or an IOException with the output when it fails. */
    static String run(String... command) throws IOException {
        Processes.Result r = Processes.run(List.of(command), Duration.ofSeconds(30));
        if (r.exitCode() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + r.exitCode()
                    + ": " + r.output().trim());
        }
        return r.output();
    }

    private static void quietly(String... command) {
        try {
            Processes.run(List.of(command), Duration.ofSeconds(30));
        } catch (IOException e) {
            // clean-up goes on
        }
    }
}

package dev.dml.ray.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** The TCP addresses that given processes listen on, read from {@code /proc} (Linux). */
final class ListeningSockets {

    private ListeningSockets() {}

    /**
     * Returns the local address of every listening TCP socket of the processes.
     *
     * @param pids the processes
     * @return addresses such as {@code 127.0.0.1}, {@code ::ffff:127.0.0.1} or {@code ::}
     */
    static List<String> addresses(Set<Long> pids) throws IOException {
        Set<String> inodes = new HashSet<>();
        for (long pid : pids) {
            Path fd = Path.of("/proc", Long.toString(pid), "fd");
            if (!Files.isDirectory(fd)) {
                continue;
            }
            try (Stream<Path> links = Files.list(fd)) {
                for (Path l : links.toList()) {
                    try {
                        String target = Files.readSymbolicLink(l).toString();
                        if (target.startsWith("socket:[")) {
                            inodes.add(target.substring(8, target.length() - 1));
                        }
                    } catch (IOException gone) {
                        // the descriptor closed while we looked
                    }
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table)).subList(1,
                    Files.readAllLines(Path.of(table)).size())) {
                String[] f = line.trim().split("\\s+");
                if (f[3].equals("0A") && inodes.contains(f[9])) { // 0A: LISTEN
                    out.add(address(f[1].substring(0, f[1].indexOf(':'))));
                }
            }
        }
        return out;
    }

    /** A hex address of /proc/net/tcp{,6} in the usual notation. */
    private static String address(String hex) {
        byte[] b = new byte[hex.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        // /proc writes each 32-bit word in host (little-endian) order
        for (int w = 0; w < b.length; w += 4) {
            byte t = b[w];
            b[w] = b[w + 3];
            b[w + 3] = t;
            t = b[w + 1];
            b[w + 1] = b[w + 2];
            b[w + 2] = t;
        }
        try {
            return java.net.InetAddress.getByAddress(b).getHostAddress();
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Whether an address accepts connections from this machine only. */
    static boolean isLoopback(String address) {
        try {
            java.net.InetAddress a = java.net.InetAddress.getByName(address);
            if (a.isLoopbackAddress()) {
                return true;
            }
            byte[] b = a.getAddress(); // ::ffff:127.x is IPv4 loopback in an IPv6 socket
            return b.length == 16 && b[10] == (byte) 0xff && b[11] == (byte) 0xff && b[12] == 127;
        } catch (java.net.UnknownHostException e) {
            return false;
        }
    }
}

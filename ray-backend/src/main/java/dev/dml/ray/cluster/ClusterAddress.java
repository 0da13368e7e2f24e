package dev.dml.ray.cluster;

import dev.dml.DmlException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;

/**
 * A cluster's GCS address and where it came from; resolves and probes it.
 *
 * @param host the host name or IP (an IPv6 address without brackets)
 * @param port the GCS port
 * @param source where the address came from, for messages
 */
record ClusterAddress(String host, int port, String source) {

    /** The environment variable Ray's own tools read. */
    static final String ENV = "RAY_ADDRESS";
    /** The system property Ray's Java runtime reads. */
    static final String PROPERTY = "ray.address";
    /** Where {@code ray start} records the address of the latest cluster on this machine. */
    static final Path CURRENT_CLUSTER = Path.of("/tmp/ray/ray_current_cluster");

    /** The HTTP/2 client preface followed by an empty SETTINGS frame. */
    private static final byte[] HTTP2_PREFACE = concat(
            "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
            new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0});

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * Parses {@code host:port}.
     *
     * @param text the address
     * @param source where it came from, for messages
     */
    static ClusterAddress parse(String text, String source) {
        String t = text == null ? "" : text.trim();
        if (t.startsWith("ray://")) {
            throw new DmlException(
                    "Ray Client addresses (" + t + ", from " + source + ") are not supported.",
                    "Use the cluster's GCS address host:port; `ray status` on the head shows it.");
        }
        int colon = t.lastIndexOf(':');
        int port = -1;
        if (colon > 0 && colon < t.length() - 1) {
            try {
                port = Integer.parseInt(t.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 1 || port > 65535) {
            throw new DmlException(
                    "'" + t + "' (from " + source + ") is not a Ray address host:port.",
                    "Write it as host:port, for example 10.0.0.5:6379.");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new ClusterAddress(host, port, source);
    }

    /**
     * Picks the address: the spec's, else {@code RAY_ADDRESS}, else {@code ray.address}.
     *
     * @return the address, or {@code null} for the embedded default
     */
    static ClusterAddress resolve(ClusterSpec spec, Map<String, String> env, Properties props) {
        if (spec.address().isPresent()) {
            return parseOrAuto(spec.address().get(), "{cluster}");
        }
        String fromEnv = env.get(ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return parseOrAuto(fromEnv, "environment variable " + ENV);
        }
        String fromProp = props.getProperty(PROPERTY);
        if (fromProp != null && !fromProp.isBlank()) {
            return parseOrAuto(fromProp, "system property " + PROPERTY);
        }
        return null;
    }

    private static ClusterAddress parseOrAuto(String text, String source) {
        if (!"auto".equals(text.trim())) {
            return parse(text, source);
        }
        try {
            String current = Files.readString(CURRENT_CLUSTER, StandardCharsets.UTF_8).trim();
            return parse(current, source + "=auto, via " + CURRENT_CLUSTER);
        } catch (IOException e) {
            throw new DmlException(
                    source + " is 'auto', but no Ray cluster was started on this machine.",
                    "Start one with `ray start --head`, or unset it to use the embedded cluster.");
        }
    }

    /**
     * Checks that a gRPC server (the GCS) answers at the address: connects, sends the HTTP/2
     * connection preface and expects the server's SETTINGS frame. An unreachable cluster or a
     * wrong port thus fails here, in Java, within {@code timeout}, instead of in Ray's native
     * layer, which ends the JVM after 60 s.
     *
     * @return this machine's address on the way to the cluster: the IP a driver here has as a
     *     node of that cluster
     */
    InetAddress probe(Duration timeout) {
        long start = System.nanoTime();
        boolean connected = false;
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            connected = true;
            long left = timeout.toMillis() - (System.nanoTime() - start) / 1_000_000;
            socket.setSoTimeout((int) Math.max(1, left));
            OutputStream out = socket.getOutputStream();
            out.write(HTTP2_PREFACE);
            out.flush();
            byte[] frame = socket.getInputStream().readNBytes(9);
            if (frame.length < 9 || frame[3] != 0x04) {
                throw notGcs("got " + printable(frame));
            }
            return socket.getLocalAddress();
        } catch (UnknownHostException e) {
            throw unreachable("unknown host " + host, e);
        } catch (SocketTimeoutException e) {
            if (connected) {
                throw notGcs("no gRPC answer within " + timeout.toMillis() + " ms");
            }
            throw unreachable("no answer within " + timeout.toMillis() + " ms", e);
        } catch (IOException e) {
            long ms = (System.nanoTime() - start) / 1_000_000;
            if (connected) {
                throw notGcs(e.getMessage() + " after " + ms + " ms");
            }
            throw unreachable(e.getMessage() + " after " + ms + " ms", e);
        }
    }

    private static String printable(byte[] bytes) {
        if (bytes.length == 0) {
            return "no data";
        }
        StringBuilder sb = new StringBuilder("'");
        for (byte b : bytes) {
            sb.append(b >= 32 && b < 127 ? (char) b : '.');
        }
        return sb.append("'").toString();
    }

    private DmlException notGcs(String why) {
        return new DmlException(
                text() + " (from " + source + ") answers, but not as a Ray GCS (gRPC): " + why
                        + ".",
                "Use the GCS address (port 6379 unless changed; `ray status` on the head shows"
                        + " it), or remove the " + sourceName() + " to use the embedded cluster.");
    }

    private DmlException unreachable(String why, Exception cause) {
        return new DmlException(
                "The Ray cluster at " + text() + " (from " + source + ") is unreachable: " + why
                        + ".",
                "Start it with `ray start --head --port=" + port + "` on " + host
                        + ", or remove the " + sourceName() + " to use the embedded cluster.",
                cause);
    }

    private String sourceName() {
        int eq = source.indexOf('=');
        return eq < 0 ? source : source.substring(0, eq);
    }

    /** Returns {@code host:port}. */
    String text() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }

    @Override
    public String toString() {
        return text() + " (from " + source + ")";
    }
}

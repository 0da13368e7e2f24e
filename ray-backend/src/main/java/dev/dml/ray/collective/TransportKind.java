package dev.dml.ray.collective;

import java.util.Arrays;
import java.util.Locale;

/** How the ranks of a group move collective data between them. */
public enum TransportKind {

    /**
     * Direct TCP connections between ranks, set up through Ray when the group forms; a link
     * that cannot be opened falls back to {@link #RAY}. The default.
     */
    TCP,

    /** Ray's object store and actor tasks: slower per chunk, but needs no open ports. */
    RAY;

    /** The name users type: {@code tcp} or {@code ray}. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Whether a rank's links, as its transport describes them, all go over direct sockets:
     * {@code tcp}, or {@code tcp; no shared memory with rank 1 (...)}, but not {@code tcp; ray
     * for rank 2 (...)} or {@code ray}.
     *
     * @param described the rank's {@code WorkerInfo.transport()}
     */
    public static boolean allDirect(String described) {
        return described.equals("tcp")
                || described.startsWith("tcp; no shared memory with rank ")
                && !described.contains("; ray for rank ");
    }

    /**
     * Finds a kind by the name users type.
     *
     * @param label {@code tcp} or {@code ray}
     * @return the kind
     * @throws IllegalArgumentException for another name
     */
    public static TransportKind of(String label) {
        return Arrays.stream(values()).filter(k -> k.label().equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no transport '" + label
                        + "'; use tcp or ray"));
    }
}

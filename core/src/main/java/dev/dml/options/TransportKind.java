package dev.dml.options;

/** How the ranks of a group move collective data between them ({@code --transport}). */
public enum TransportKind implements Choice {

    /**
     * Direct TCP connections between ranks, set up through Ray when the group forms; a link
     * that cannot be opened falls back to {@link #RAY}. The default.
     */
    TCP,

    /** Ray's object store and actor tasks: slower per chunk, but needs no open ports. */
    RAY;

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

    @Override
    public String toString() {
        return word();
    }
}

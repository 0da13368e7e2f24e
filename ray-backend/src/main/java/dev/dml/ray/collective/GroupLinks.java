package dev.dml.ray.collective;

import java.io.Serializable;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * How the ranks of one group reach each other, as the group's start tells each rank: the
 * collectives' timeout and, for direct links, the group's token and every rank's endpoint.
 * Crosses Ray, so a plain {@link Serializable} class.
 */
public final class GroupLinks implements Serializable {

    private static final long serialVersionUID = 1L;

    private final long timeoutMillis;
    private final long token;
    private final ArrayList<String> endpoints;

    private GroupLinks(long timeoutMillis, long token, List<String> endpoints) {
        this.timeoutMillis = timeoutMillis;
        this.token = token;
        this.endpoints = new ArrayList<>(endpoints);
    }

    /** Links through Ray's object store only. */
    static GroupLinks viaRay(long timeoutMillis) {
        return new GroupLinks(timeoutMillis, 0, List.of());
    }

    /**
     * Direct TCP links to each rank's {@code host:port}, by rank (empty for a rank that could
     * not listen); Ray where one fails.
     */
    static GroupLinks direct(long timeoutMillis, long token, List<String> endpoints) {
        return new GroupLinks(timeoutMillis, token, endpoints);
    }

    long timeoutMillis() {
        return timeoutMillis;
    }

    long token() {
        return token;
    }

    boolean direct() {
        return !endpoints.isEmpty();
    }

    /** Each rank's endpoint, by rank; null for a rank that could not listen. */
    List<InetSocketAddress> endpoints() {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String e : endpoints) {
            out.add(TcpEndpoint.parse(e));
        }
        return out;
    }

    int size() {
        return endpoints.size();
    }
}

package dev.dml.ray.collective;

import io.ray.api.Ray;
import io.ray.api.runtimecontext.NodeInfo;
import java.net.InetAddress;
import java.net.UnknownHostException;

/** The Ray node a worker runs on: its id and the IP the cluster knows it by. */
public final class NodeAddress {

    private NodeAddress() {}

    /**
     * Returns this process's node.
     *
     * @return {id, ip}; in Ray's LOCAL mode, where there is one process, {"local", host address}
     */
    public static String[] current() {
        if (Ray.getRuntimeContext().isLocalMode()) {
            return new String[] {"local", hostAddress()};
        }
        String id = Ray.getRuntimeContext().getCurrentNodeId().toString();
        for (NodeInfo n : Ray.getRuntimeContext().getAllNodeInfo()) {
            if (n.nodeId.toString().equals(id)) {
                return new String[] {id, n.nodeAddress};
            }
        }
        return new String[] {id, hostAddress()};
    }

    /**
     * Returns the address this process listens on for direct links: the node's address as the
     * cluster knows it, so that an embedded head's workers listen on loopback only; loopback in
     * LOCAL mode, where every rank is in this process.
     */
    static String listenHost() {
        return Ray.getRuntimeContext().isLocalMode() ? "127.0.0.1" : current()[1];
    }

    private static String hostAddress() {
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }
}

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

    private static String hostAddress() {
        try {
            return InetAddress.getLocalHost().getHostAddress();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }
}

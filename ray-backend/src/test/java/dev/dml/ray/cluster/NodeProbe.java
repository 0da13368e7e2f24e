package dev.dml.ray.cluster;

import io.ray.api.ActorHandle;
import io.ray.api.Ray;
import io.ray.api.runtimecontext.NodeInfo;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * An actor that says where it runs and which of the kernel's paths it can read there; the
 * multi-node tests place one per node.
 */
public class NodeProbe {

    /** What a probe saw: crosses Ray, so a plain Serializable class. */
    public static final class Report implements Serializable {
        private static final long serialVersionUID = 1L;
        /** The address of the probe's node. */
        public final String ip;
        /** The paths it could read. */
        public final ArrayList<String> readable;

        Report(String ip, ArrayList<String> readable) {
            this.ip = ip;
            this.readable = readable;
        }
    }

    /** Creates a probe; Ray calls it. */
    public NodeProbe() {}

    /**
     * Reports the probe's node and which paths it can read.
     *
     * @param paths paths on the kernel's machine
     * @return the node's address and the readable paths
     */
    public Report report(ArrayList<String> paths) {
        String node = Ray.getRuntimeContext().getCurrentNodeId().toString();
        String ip = "unknown";
        for (NodeInfo n : Ray.getRuntimeContext().getAllNodeInfo()) {
            if (n.nodeId.toString().equals(node)) {
                ip = n.nodeAddress;
            }
        }
        ArrayList<String> readable = new ArrayList<>();
        for (String p : paths) {
            if (Files.isReadable(Path.of(p))) {
                readable.add(p);
            }
        }
        return new Report(ip, readable);
    }

    /** Starts {@code count} probes of one CPU each and returns their reports. */
    static final class Run implements DriverTask<ArrayList<Report>> {
        private static final long serialVersionUID = 1L;
        private final int count;
        private final ArrayList<String> paths;

        Run(int count, List<String> paths) {
            this.count = count;
            this.paths = new ArrayList<>(paths);
        }

        @Override
        public ArrayList<Report> run(DriverContext context) {
            List<ActorHandle<NodeProbe>> probes = new ArrayList<>();
            ArrayList<Report> out = new ArrayList<>();
            try {
                for (int i = 0; i < count; i++) {
                    probes.add(Ray.actor(NodeProbe::new).setResource("CPU", 1.0).remote());
                }
                for (ActorHandle<NodeProbe> p : probes) {
                    out.add(p.task(NodeProbe::report, paths).remote().get());
                }
                return out;
            } finally {
                probes.forEach(ActorHandle::kill);
            }
        }
    }
}

package dev.dml.ray.collective;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which node each rank of a group runs on: what tells a link inside a node (shared memory)
 * from one across nodes (the network), and the groups the hierarchical all-reduce uses.
 *
 * @param nodeOfRank each rank's node id, by rank
 */
record Topology(List<String> nodeOfRank) {

    Topology {
        nodeOfRank = List.copyOf(nodeOfRank);
    }

    /** Every rank on one node: a single machine, or a group whose nodes are not known. */
    static Topology singleNode(int size) {
        List<String> nodes = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            nodes.add("node");
        }
        return new Topology(nodes);
    }

    /**
     * Orders members so that those of one node get neighbouring ranks: nodes in the order of
     * their first member, members of a node in their given order.
     *
     * @param nodeOfMember each member's node id, in creation order
     * @return for each new rank, the member's index in creation order
     */
    static int[] ranksByNode(List<String> nodeOfMember) {
        return new Topology(nodeOfMember).byNode().stream().flatMap(List::stream)
                .mapToInt(Integer::intValue).toArray();
    }

    int size() {
        return nodeOfRank.size();
    }

    boolean sameNode(int a, int b) {
        return nodeOfRank.get(a).equals(nodeOfRank.get(b));
    }

    /** The ranks on each node, ascending, nodes in the order of their lowest rank. */
    List<List<Integer>> byNode() {
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        for (int r = 0; r < nodeOfRank.size(); r++) {
            out.computeIfAbsent(nodeOfRank.get(r), k -> new ArrayList<>()).add(r);
        }
        return List.copyOf(out.values());
    }

    /** The ranks on {@code rank}'s node, ascending; the first is the node's leader. */
    List<Integer> local(int rank) {
        for (List<Integer> node : byNode()) {
            if (node.contains(rank)) {
                return node;
            }
        }
        throw new IllegalArgumentException("no rank " + rank + " in " + nodeOfRank);
    }

    /** Each node's leader (its lowest rank), in node order. */
    List<Integer> leaders() {
        return byNode().stream().map(n -> n.get(0)).toList();
    }

    /**
     * Whether the all-reduce goes inside each node first, then across nodes: when the group
     * spans nodes and some node holds more than one rank (with one rank per node the
     * hierarchy is the plain ring).
     */
    boolean hierarchical() {
        int nodes = byNode().size();
        return nodes > 1 && nodes < nodeOfRank.size();
    }
}

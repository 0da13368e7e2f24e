package dev.dml.ray.ps;

import dev.dml.DmlException;
import io.ray.api.ActorHandle;
import io.ray.api.ObjectRef;
import io.ray.api.Ray;
import io.ray.api.concurrencygroup.ConcurrencyGroup;
import io.ray.api.concurrencygroup.ConcurrencyGroupBuilder;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A job's parameter servers: the driver starts them ({@link #start}), a worker opens its
 * {@link #link} to them and rank 0 seeds them from its replica ({@link #seed}) before every
 * run of steps; the driver aborts their waits after a failure and kills them at the end.
 * Crosses Ray to the workers, so a plain Serializable class.
 */
public final class ServerGroup implements Serializable, AutoCloseable {

    /** How long a live server may take to stop serving: generous, as recovery waits on it. */
    private static final int ABORT_WAIT_MS = 60_000;
    /** What a call or a reply may take beyond a gate's wait: the work and the transfer. */
    private static final long ANSWER_MARGIN_MS = 60_000;

    private static final long serialVersionUID = 1L;

    private final ArrayList<ActorHandle<ParameterServer>> servers;
    private final int bound;
    private final long waitMillis;
    /** Each server's direct endpoint, or null where clients call through Ray. */
    private final ArrayList<String> addresses;
    private final long token;

    private ServerGroup(List<ActorHandle<ParameterServer>> servers, int bound,
            long waitMillis, List<String> addresses, long token) {
        this.servers = new ArrayList<>(servers);
        this.bound = bound;
        this.waitMillis = waitMillis;
        this.addresses = addresses == null ? null : new ArrayList<>(addresses);
        this.token = token;
    }

    /**
     * Starts the servers, each reserving no CPU (they add floats; the workers compute).
     *
     * @param count the servers
     * @param workers the job's workers: the most clients that may push at once, whatever
     *     the node layout a seed names ({@link #clients})
     * @param bound the staleness bound S, or -1 for none
     * @param wait how long a gated client may wait for the slowest
     * @param jvmOptions the servers' JVM options, as the workers'
     * @param direct whether clients reach the servers over direct TCP connections (as {@code
     *     --transport tcp} has it); where a server cannot listen, all go through Ray
     * @return the group
     */
    public static ServerGroup start(int count, int workers, int bound, Duration wait,
            List<String> jvmOptions, boolean direct) {
        ConcurrencyGroup serving = new ConcurrencyGroupBuilder<ParameterServer>()
                .setName(ParameterServer.SERVING).setMaxConcurrency(workers + 1)
                .addMethod(ParameterServer::pushPull).addMethod(ParameterServer::abort).build();
        List<ActorHandle<ParameterServer>> out = new ArrayList<>();
        for (int s = 0; s < count; s++) {
            out.add(Ray.actor(ParameterServer::new).setResource("CPU", 0.0)
                    .setJvmOptions(jvmOptions).setConcurrencyGroups(serving).remote());
        }
        long token = new java.security.SecureRandom().nextLong();
        List<String> addresses = null;
        if (direct) {
            List<ObjectRef<String>> listening = new ArrayList<>();
            out.forEach(s -> listening.add(s.task(ParameterServer::listen, token).remote()));
            addresses = new ArrayList<>();
            for (int s = 0; s < count; s++) {
                addresses.add(ServerFailure.await(listening.get(s), s, count, "listen",
                        wait.toMillis() + ANSWER_MARGIN_MS));
            }
            if (addresses.contains("")) {
                addresses = null;
            }
        }
        return new ServerGroup(out, bound, wait.toMillis(), addresses, token);
    }

    /** The longest a call to a server may take: a gate's wait and a margin. */
    private long answerMillis() {
        return waitMillis + ANSWER_MARGIN_MS;
    }

    /** How clients reach the servers, for the cell. @return {@code TCP} or {@code Ray calls} */
    public String transport() {
        return addresses != null ? "TCP" : "Ray calls";
    }

    /** The servers. @return at least 1 */
    public int size() {
        return servers.size();
    }

    /**
     * The clients that push in a node layout: one per node (its leader, for the node's sum)
     * when the job spans nodes and some node holds several ranks, else one per worker. A
     * recovery or resize that moves ranks between nodes changes it; every rank and every seed
     * reads it from the group's layout of the moment.
     *
     * @param nodes the nodes the ranks are on
     * @param workers the ranks
     * @return the clients
     */
    public static int clients(int nodes, int workers) {
        return nodes > 1 && nodes < workers ? nodes : workers;
    }

    /**
     * A client's link to the servers.
     *
     * @param shapes the model's parameter tensors, which the servers hold whole
     * @param client the client's index
     * @return the link
     */
    public ServerLink link(List<long[]> shapes, int client) {
        ServerPartitions partitions = ServerPartitions.of(shapes, servers.size());
        return addresses != null ? new TcpServerLink(addresses, token, partitions, client,
                Duration.ofMillis(answerMillis()))
                : new RayServerLink(servers, partitions, client, answerMillis());
    }

    /**
     * Seeds every server with its partition of a replica's parameters, every client's clock at
     * {@code clock}, and the gate open.
     *
     * @param parameters the whole flat vector
     * @param shapes the model's parameter tensors
     * @param clock the steps the job has completed
     * @param clients the clients that push from now on ({@link #clients})
     */
    public void seed(float[] parameters, List<long[]> shapes, long clock, int clients) {
        ServerPartitions partitions = ServerPartitions.of(shapes, servers.size());
        List<ObjectRef<Long>> refs = new ArrayList<>();
        for (int s = 0; s < servers.size(); s++) {
            refs.add(servers.get(s).task(ParameterServer::seed,
                    FloatBytes.of(partitions.gather(parameters, s)), clock, clients, bound,
                    waitMillis).remote());
        }
        for (int s = 0; s < refs.size(); s++) {
            ServerFailure.await(refs.get(s), s, servers.size(), "seed", answerMillis());
        }
    }

    /**
     * Ends every wait at the servers' gates until the next seed: a worker was lost. It returns
     * once every server has taken the abort (or is gone, which the next seed names), so that no
     * abort can land after the seed that recovery sends next and stop the servers again.
     *
     * @param why what happened
     * @throws DmlException when a live server does not take it within {@value #ABORT_WAIT_MS} ms
     */
    public void abort(String why) {
        List<ObjectRef<Long>> refs = new ArrayList<>();
        for (ActorHandle<ParameterServer> s : servers) {
            refs.add(s.task(ParameterServer::abort, why)
                    .setConcurrencyGroup(ParameterServer.SERVING).remote());
        }
        int taken = Ray.wait(refs, refs.size(), ABORT_WAIT_MS).getReady().size();
        if (taken < refs.size()) {
            throw new DmlException((refs.size() - taken) + " of " + refs.size() + " parameter"
                    + " servers did not stop serving within " + ABORT_WAIT_MS / 1000 + " s after a"
                    + " worker was lost: " + why, "See the servers' logs; the machine may be"
                    + " overloaded. Resume from a checkpoint.");
        }
    }

    /** Kills the servers (in Ray's LOCAL mode, which cannot, they end with the session). */
    @Override
    public void close() {
        for (ActorHandle<ParameterServer> s : servers) {
            try {
                s.kill();
            } catch (RuntimeException unsupportedOrDead) {
                // LOCAL mode, or a server already gone: nothing left to end
            }
        }
    }
}

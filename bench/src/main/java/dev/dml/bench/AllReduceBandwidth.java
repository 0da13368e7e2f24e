package dev.dml.bench;

import dev.dml.ray.cluster.DriverTask;
import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.JobJvms;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.events.WorkerInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * P4: ring all-reduce bandwidth of 25 MB between two actors divided by the bandwidth of a raw
 * actor-to-actor hand-off of 25 MB through Ray's object store, measured in the same run (goal
 * at least 0.5).
 *
 * <p>A real local cluster: the embedded head with 2 CPUs, one driver process, an {@link
 * ActorGroup} of two {@link RingActor}s (1 CPU each). Both times are taken inside the actors. The
 * all-reduce is {@code allReduce(float[6_250_000], AVERAGE)} on both ranks after a one-float
 * barrier; its time is the slower rank's. The hand-off is rank 0's {@code Ray.put(byte[25 MB])}
 * until rank 1's reply to a call that takes the reference. This JVM loads no Ray classes: the
 * tasks run in the driver child JVM, which has the cluster's {@code ray_dist.jar}.
 */
final class AllReduceBandwidth implements Benchmark {

    static final double GOAL = 0.5;
    static final Rounds ROUNDS = new Rounds(2, 7);
    static final int FLOATS = 6_250_000;
    static final int BYTES = FLOATS * Float.BYTES;
    static final int WORKERS = 2;

    private static final String GROUP = "p4";
    private static final String SUBJECT = "ring all-reduce (CollectiveWorker.allReduce, AVERAGE)"
            + " of 6,250,000 float32 = 25 MB on each of 2 actors; algorithm bandwidth = 25 MB /"
            + " time of the slower rank";
    private static final String PEER = "raw actor-to-actor hand-off of 25 MB: Ray.put(byte[])"
            + " in rank 0, rank 1's method takes the ObjectRef as its argument and replies;"
            + " bandwidth = 25 MB / time from the put to the reply";

    @Override
    public BenchResult run(String task) throws Exception {
        TrialTimes allReduce = new TrialTimes("ring_all_reduce", BYTES);
        TrialTimes handOff = new TrialTimes("object_store_hand_off", BYTES);
        TrialTimes tcpCopy = new TrialTimes("tcp_loopback_copy", BYTES);
        List<Map<String, Object>> workers = new ArrayList<>();
        List<String> transports = new ArrayList<>();
        Map<String, Object> workerEnv = new LinkedHashMap<>();
        try (RayCluster cluster = MlpJobs.openCluster();
                DriverProcess driver = cluster.openDriver()) {
            for (String info : driver.call(new Open())) {
                workers.add(Map.of("worker", info));
                transports.add(info.substring(info.indexOf(" over ") + 6));
            }
            JobJvms.WORKER_ENV.keySet().forEach(k -> workerEnv.put(k,
                    driver.call(new Env(k))));
            new SideBySide(ROUNDS)
                    .add(allReduce, round -> driver.call(new TimeAllReduce()))
                    .add(handOff, round -> driver.call(new TimeHandOff()))
                    .add(tcpCopy, round -> driver.call(new TimeTcpCopy()))
                    .run();
            driver.call(new Close());
        }
        double ratio = allReduce.medianMbPerSecond() / handOff.medianMbPerSecond();
        double vsTcp = allReduce.medianMbPerSecond() / tcpCopy.medianMbPerSecond();
        double algBw = allReduce.medianMbPerSecond();
        double busBw = algBw * 2.0 * (WORKERS - 1) / WORKERS;
        double[] a = allReduce.seconds();
        double[] h = handOff.seconds();
        double[] paired = new double[a.length];
        for (int i = 0; i < a.length; i++) {
            paired[i] = TrialTimes.round(h[i] / a[i], 4);
        }
        System.out.printf("P4: all-reduce %.1f MB/s (bus %.1f MB/s), hand-off %.1f MB/s, raw TCP"
                + " %.1f MB/s; ratio %.3f (goal %.2f), against raw TCP %.3f%n", algBw, busBw,
                handOff.medianMbPerSecond(), tcpCopy.medianMbPerSecond(), ratio, GOAL, vsTcp);
        Map<String, Object> bw = new LinkedHashMap<>();
        bw.put("all_reduce_algorithm_mb_per_s", TrialTimes.round(algBw, 1));
        bw.put("all_reduce_bus_mb_per_s", TrialTimes.round(busBw, 1));
        bw.put("hand_off_mb_per_s", TrialTimes.round(handOff.medianMbPerSecond(), 1));
        bw.put("tcp_loopback_copy_mb_per_s", TrialTimes.round(tcpCopy.medianMbPerSecond(), 1));
        return new BenchResult("P4", GOAL, task)
                .setRatio(ratio)
                .put("ratio_is", "median(all-reduce algorithm bandwidth) / median(hand-off"
                        + " bandwidth); both 25 MB / median seconds; MB = 10^6 bytes")
                .put("bus_bandwidth_is", "algorithm bandwidth * 2(N-1)/N, as nccl-tests report"
                        + " it; N = " + WORKERS + ", so it equals the algorithm bandwidth")
                .put("ratio_against_raw_tcp", TrialTimes.round(vsTcp, 4))
                .put("ratio_against_raw_tcp_is", "median(all-reduce algorithm bandwidth) /"
                        + " median(raw TCP loopback copy bandwidth): the same 25 MB written by"
                        + " rank 0 to a plain socket that rank 1 reads whole and answers with"
                        + " one byte; no encoding, no reduction")
                .put("transport", "the all-reduce's links: " + transports)
                .put("subject", SUBJECT)
                .put("peer", PEER)
                .put("cluster", "embedded Ray head on this machine, 2 CPUs; 1 driver process;"
                        + " 2 actors of 1 CPU each")
                .put("method", "both timed inside the actors (System.nanoTime); "
                        + ROUNDS.describe() + ", each running both trials, alternating which"
                        + " goes first; medians")
                .put("bandwidth", bw)
                .put("paired_ratios", paired)
                .put("paired_ratio_median", TrialTimes.round(TrialTimes.median(paired), 4))
                .put("all_reduce", allReduce.toJson(SUBJECT))
                .put("hand_off", handOff.toJson(PEER))
                .put("tcp_loopback_copy", tcpCopy.toJson("raw TCP loopback copy of 25 MB"))
                .put("workers", workers)
                .put("worker_env", workerEnv);
    }

    @SuppressWarnings("unchecked")
    private static ActorGroup<RingActor> group(DriverContext context) {
        return (ActorGroup<RingActor>) context.lookup(GROUP, ActorGroup.class);
    }

    /** Opens the group of two workers and registers it; returns who they are. */
    static final class Open implements DriverTask<ArrayList<String>> {
        private static final long serialVersionUID = 1L;

        @Override
        public ArrayList<String> run(DriverContext context) {
            ActorGroup<RingActor> g = context.register(GROUP,
                    ActorGroup.builder(RingActor::new).setSize(WORKERS).open());
            ArrayList<String> out = new ArrayList<>();
            for (WorkerInfo w : g.workers()) {
                out.add("rank " + w.rank() + " of " + w.worldSize() + " over " + w.transport());
            }
            return out;
        }
    }

    /**
     * Returns an environment variable of rank 0's worker process.
     *
     * @param name the variable
     */
    record Env(String name) implements DriverTask<String> {

        @Override
        public String run(DriverContext context) {
            return String.valueOf(group(context).callAll(RingActor::env, name));
        }
    }

    /** Times one all-reduce on both ranks; returns the slower rank's seconds. */
    static final class TimeAllReduce implements DriverTask<Double> {
        private static final long serialVersionUID = 1L;

        @Override
        public Double run(DriverContext context) {
            double max = 0;
            for (double s : group(context).callAll(RingActor::timedAllReduce, FLOATS)) {
                max = Math.max(max, s);
            }
            return max;
        }
    }

    /** Times one hand-off from rank 0 to rank 1. */
    static final class TimeHandOff implements DriverTask<Double> {
        private static final long serialVersionUID = 1L;

        @Override
        public Double run(DriverContext context) {
            ActorGroup<RingActor> g = group(context);
            return g.actor(0).task(RingActor::timedHandOff, g.actor(1), BYTES).remote().get();
        }
    }

    /** Times one raw TCP copy from rank 0 to rank 1 over loopback, opening it on first use. */
    static final class TimeTcpCopy implements DriverTask<Double> {
        private static final long serialVersionUID = 1L;
        /** Rank 1's raw socket, in the driver JVM, which runs every task of this benchmark. */
        private static Integer port;

        @Override
        public Double run(DriverContext context) {
            ActorGroup<RingActor> g = group(context);
            if (port == null) {
                port = g.actor(1).task(RingActor::rawListen).remote().get();
            }
            return g.actor(0).task(RingActor::timedTcpCopy, port, BYTES).remote().get();
        }
    }

    /** Closes the group (kills its actors). */
    static final class Close implements DriverTask<Boolean> {
        private static final long serialVersionUID = 1L;

        @Override
        public Boolean run(DriverContext context) {
            context.release(GROUP);
            return true;
        }
    }
}

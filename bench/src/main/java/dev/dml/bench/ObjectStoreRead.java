package dev.dml.bench;

import static dev.dml.bench.WorkerReadFiles.timed;

import ai.djl.ndarray.NDManager;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.dml.ray.data.ArrowShards;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.DataFiles;
import dev.dml.ray.data.S3ProxyServer;
import dev.dml.ray.data.ShardDecoder;
import dev.dml.ray.data.SyntheticFraud;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import tech.tablesaw.api.Table;

/**
 * P6's object-storage row ({@code bash bench/run P6S3}): rows per second that reach a worker's
 * arrays when it reads its shard from an S3-compatible server ({@code s3://}, {@code
 * --read-on-workers}), against pyarrow reading the same objects from the same server with
 * {@code pyarrow.dataset} over {@code S3FileSystem} (the ratio; goal at least 0.8), and against
 * the same worker read from local disk (context).
 *
 * <p>The server is S3Proxy with its filesystem backend on loopback, started here, so the
 * numbers are the clients' costs (requests, decoding), not a network's. The data: the
 * synthetic fraud table as one Parquet file of row groups of {@value
 * WorkerReadFiles#ROWS_PER_GROUP} rows, uploaded with boto3. dml reads every unit without the
 * node cache, as a first epoch does; pyarrow reads the whole prefix into a table. Rounds
 * alternate the three.
 */
final class ObjectStoreRead implements Benchmark {

    static final double GOAL = 0.8;
    static final int ROWS = 500_000;
    static final Rounds ROUNDS = new Rounds(1, 5);
    /** A request's extra wait at the slow server: a store one round trip away. */
    static final long SLOW_MILLIS = 20;
    private static final String BUCKET = "bench";

    @Override
    public BenchResult run(String command) throws Exception {
        // S3ProxyServer and its upload script live with ray-backend's tests
        System.setProperty("basedir", Path.of("ray-backend").toAbsolutePath().toString());
        Table t = SyntheticFraud.generate(ROWS, 5);
        ColumnSelection sel = SyntheticFraud.selection();
        long bytes = (long) ROWS * (sel.features().size() + 1) * 4;
        TrialTimes remote = new TrialTimes("dml_s3_no_cache", bytes);
        TrialTimes disk = new TrialTimes("dml_local_disk_no_cache", bytes);
        TrialTimes pyarrow = new TrialTimes("pyarrow_dataset_s3", bytes);
        TrialTimes remoteSlow = new TrialTimes("dml_s3_slow_server", bytes);
        TrialTimes pyarrowSlow = new TrialTimes("pyarrow_dataset_s3_slow_server", bytes);
        Path dir = Files.createTempDirectory("dml-p6s3");
        try (BufferAllocator root = new RootAllocator();
                NDManager m = NDManager.newBaseManager("PyTorch");
                ShardDecoder dec = new ShardDecoder(root, "p6s3");
                WorkerReadFiles files = WorkerReadFiles.write("fraud",
                        ArrowShards.encode(t, sel), sel);
                S3ProxyServer s3 = S3ProxyServer.start(Files.createDirectories(
                        dir.resolve("s3")));
                LatencyProxy slow = new LatencyProxy(URI.create(s3.endpoint()).getPort(),
                        SLOW_MILLIS)) {
            s3.useItsCredentials();
            s3.upload(BUCKET, files.parquetFile().toString(), "fraud/fraud.parquet");
            DataFiles objects = DataFiles.open("s3://" + BUCKET + "/fraud/", s3.endpoint());
            if (objects.rows() != ROWS) {
                throw new IllegalStateException("the prefix lists " + objects.rows() + " rows");
            }
            DataFiles far = DataFiles.open("s3://" + BUCKET + "/fraud/", slow.endpoint());
            new SideBySide(ROUNDS)
                    .add(remote, round -> timed(() -> files.read(objects, null, 0, dec, m)))
                    .add(disk, round -> timed(() -> files.read(files.parquet, null, 0, dec, m)))
                    .add(pyarrow, round -> pyarrowRead(s3.endpoint()))
                    .add(remoteSlow, round -> timed(() -> files.read(far, null, 0, dec, m)))
                    .add(pyarrowSlow, round -> pyarrowRead(slow.endpoint()))
                    .run();
        } finally {
            WorkerReadFiles.deleteTree(dir);
        }
        double dmlRows = ROWS / remote.medianSeconds();
        double peerRows = ROWS / pyarrow.medianSeconds();
        Map<String, Object> rates = new LinkedHashMap<>();
        rates.put("dml_s3", TrialTimes.round(dmlRows, 0));
        rates.put("pyarrow_s3", TrialTimes.round(peerRows, 0));
        rates.put("dml_local_disk", TrialTimes.round(ROWS / disk.medianSeconds(), 0));
        return new BenchResult("P6S3", GOAL, command)
                .setRatio(dmlRows / peerRows)
                .put("ratio_is", "median rows/s of dml's worker read from the S3-compatible"
                        + " server / median rows/s of pyarrow.dataset reading the same objects"
                        + " from it; larger is better")
                .put("rows", ROWS)
                .put("rows_per_s", rates)
                .put("s3_over_local_disk", TrialTimes.round(disk.medianSeconds()
                        / remote.medianSeconds(), 4))
                .put("subject", remote.toJson("FileShard.open over s3:// (ranged GETs of each"
                        + " row group's columns, no node cache) -> shard -> NDArrays"))
                .put("peer", pyarrow.toJson("pyarrow.dataset(prefix, S3FileSystem).to_table()"
                        + " in a python3 process, timed inside it (bench/data/s3_read.py)"))
                .put("context_local_disk", disk.toJson("the same worker read from the Parquet"
                        + " file on local disk"))
                .put("server", "S3Proxy 2.6.0, filesystem backend, on loopback")
                .put("slow_server", slowServer(remote, remoteSlow, pyarrow, pyarrowSlow))
                .put("method", "one process; " + ROUNDS.describe() + ", each running the"
                        + " three reads in a rotating order; medians");
    }

    /** The same reads with each request held {@value #SLOW_MILLIS} ms at the server. */
    private static Map<String, Object> slowServer(TrialTimes fast, TrialTimes slow,
            TrialTimes peerFast, TrialTimes peerSlow) {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("what", "a relay in front of the server holds each request " + SLOW_MILLIS
                + " ms (LatencyProxy); the ratios are time on the slow server / time on the"
                + " fast one, so 1 means the latency is hidden");
        s.put("dml_slow_over_fast", TrialTimes.round(slow.medianSeconds()
                / fast.medianSeconds(), 3));
        s.put("pyarrow_slow_over_fast", TrialTimes.round(peerSlow.medianSeconds()
                / peerFast.medianSeconds(), 3));
        s.put("dml_rows_per_s", TrialTimes.round(ROWS / slow.medianSeconds(), 0));
        s.put("pyarrow_rows_per_s", TrialTimes.round(ROWS / peerSlow.medianSeconds(), 0));
        s.put("dml", slow.toJson("the worker read through the slow relay"));
        s.put("pyarrow", peerSlow.toJson("pyarrow.dataset through the slow relay"));
        return s;
    }

    /** One pyarrow read in a fresh process; its own timing leaves out the start-up. */
    private static double pyarrowRead(String endpoint) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("python3", "bench/data/s3_read.py", endpoint,
                S3ProxyServer.KEY_ID, S3ProxyServer.SECRET, BUCKET + "/fraud/", "1")
                .redirectErrorStream(true);
        // S3Proxy answers the newer SDKs' checksum headers with 501 NotImplemented; the AWS
        // SDK for C++ under pyarrow sends them only when these say so (as boto3's do)
        pb.environment().put("AWS_REQUEST_CHECKSUM_CALCULATION", "when_required");
        pb.environment().put("AWS_RESPONSE_CHECKSUM_VALIDATION", "when_required");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
            throw new IllegalStateException("bench/data/s3_read.py failed; it needs python3"
                    + " with pyarrow on the PATH:\n" + out);
        }
        String[] lines = out.strip().split("\n");
        JsonObject r = JsonParser.parseString(lines[lines.length - 1]).getAsJsonObject();
        if (r.get("rows").getAsLong() != ROWS) {
            throw new IllegalStateException("pyarrow read " + r.get("rows") + " rows");
        }
        return r.getAsJsonArray("seconds").get(0).getAsDouble();
    }
}

package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real S3-compatible server for tests: S3Proxy with its filesystem backend, in its own JVM
 * (its jars would change the versions of Ray's and Arrow's dependencies on the test class
 * path), on loopback, with its own port and data folder. Files reach it through boto3, as users
 * upload theirs. {@link #close} stops it; {@link #stop} stops it while a job runs.
 */
public final class S3ProxyServer implements AutoCloseable {

    /** The identity and credential the server accepts (not secrets: a test server). */
    public static final String KEY_ID = "dml-test";
    public static final String SECRET = "dml-test-secret";

    private final Path dir;
    private final InetAddress host;
    private final int port;
    private Process process;

    private S3ProxyServer(Path dir, InetAddress host, int port) {
        this.dir = dir;
        this.host = host;
        this.port = port;
    }

    /**
     * Starts a server and waits (at most 60 s) until it answers.
     *
     * @param dir a folder of its own for its data, properties and log
     * @return the server
     */
    public static S3ProxyServer start(Path dir) throws Exception {
        return start(dir, InetAddress.getLoopbackAddress());
    }

    /**
     * Starts a server on an address of this machine that others reach (a namespaced node
     * reaches the bridge's), and waits (at most 60 s) until it answers.
     *
     * @param dir a folder of its own for its data, properties and log
     * @param host the address it listens on
     * @return the server
     */
    public static S3ProxyServer start(Path dir, InetAddress host) throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, host)) {
            port = s.getLocalPort();
        }
        S3ProxyServer server = new S3ProxyServer(dir, host, port);
        server.launch();
        return server;
    }

    private void launch() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Path props = dir.resolve("s3proxy.properties");
        Files.writeString(props, String.join("\n",
                "s3proxy.endpoint=" + endpoint(),
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + KEY_ID,
                "s3proxy.credential=" + SECRET,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + data) + "\n");
        Path cp = Path.of(System.getProperty("basedir", "."), "test-servers", "target",
                "s3proxy.classpath");
        assertTrue(Files.isRegularFile(cp), "no " + cp + ": build with -am (test-servers)");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        process = new ProcessBuilder(java, "-Xmx256m", "-cp", Files.readString(cp).strip(),
                "org.gaul.s3proxy.Main", "--properties", props.toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("s3proxy.log")
                        .toFile()))
                .start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                fail("S3Proxy exited: " + Files.readString(dir.resolve("s3proxy.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(200);
            }
        }
        fail("S3Proxy did not listen on " + port + " within 60 s");
    }

    /**
     * Starts a server that holds the breast cancer table in two Parquet halves of 100 rows a
     * group, {@code cancer/a.parquet} (snappy) and {@code cancer/b.parquet} (zstd), in bucket
     * {@code train}; this JVM signs as its identity.
     *
     * @param dir a folder of its own for its data, properties and log
     * @param host the address it listens on
     * @param local where the halves are written first, as {@code a.parquet} and {@code
     *     b.parquet}
     * @return the server
     */
    public static S3ProxyServer withCancerHalves(Path dir, InetAddress host, Path local)
            throws Exception {
        Path a = DataFileFixtures.write("breast_cancer.csv", local.resolve("a.parquet"), 100,
                "snappy", 1);
        Path b = DataFileFixtures.write("breast_cancer.csv", local.resolve("b.parquet"), 100,
                "zstd", 1);
        S3ProxyServer s3 = start(dir, host);
        s3.useItsCredentials();
        s3.upload("train", a.toString(), "cancer/a.parquet", b.toString(), "cancer/b.parquet");
        return s3;
    }

    /** @return its URL, {@code http://HOST:PORT} */
    public String endpoint() {
        return "http://" + host.getHostAddress() + ":" + port;
    }

    /**
     * Puts files into a bucket with boto3, creating the bucket.
     *
     * @param bucket the bucket
     * @param fileAndKey pairs of a local file and its key
     * @return each key's ETag
     */
    public Map<String, String> upload(String bucket, String... fileAndKey) {
        Python.requireBoto3();
        List<String> args = new ArrayList<>(List.of(endpoint(), KEY_ID, SECRET, bucket));
        args.addAll(List.of(fileAndKey));
        return Python.runScript("s3_upload.py", args.toArray(String[]::new));
    }

    /** Stops the server (a job that reads from it then fails); at most 20 s. */
    public void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** Lets this JVM's S3 clients sign as the server's identity (the default chain's first). */
    public void useItsCredentials() {
        System.setProperty("aws.accessKeyId", KEY_ID);
        System.setProperty("aws.secretAccessKey", SECRET);
        System.setProperty("aws.region", "us-east-1");
    }

    /** @return JVM options that give a worker the same credentials */
    public List<String> workerCredentials() {
        return List.of("-Daws.accessKeyId=" + KEY_ID, "-Daws.secretAccessKey=" + SECRET,
                "-Daws.region=us-east-1");
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}

package dev.dml.ray.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The real {@code tensorboard} from pip (requirements-test.txt), run with the {@code python3}
 * on the PATH (dml's Python environment under bin/test): its {@code EventAccumulator} reading
 * event files, and its server on loopback queried over HTTP as its web page does.
 */
public final class TensorBoard implements AutoCloseable {

    private static final Duration READY = Duration.ofSeconds(90);
    private final Process process;
    private final Path log;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5)).build();

    private TensorBoard(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /**
     * Reads a folder of event files with {@code tensorboard_read.py}.
     *
     * @param dir the run's folder
     * @return {@code scalars} (tag to [step, value] pairs), {@code hparams}, {@code group},
     *     {@code status}
     */
    public static JsonElement read(Path dir) throws Exception {
        Path script = Path.of(System.getProperty("basedir", "."), "src", "test", "python",
                "tensorboard_read.py");
        Path out = Files.createTempFile("tensorboard-read", ".log");
        Process p = new ProcessBuilder("python3", script.toString(), dir.toString())
                .redirectError(out.toFile()).start();
        String json = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("tensorboard_read.py did not finish in 120 s");
        }
        assertEquals(0, p.exitValue(), "tensorboard_read.py failed; python3 needs tensorboard"
                + " (bash bin/install --for-tests installs it):\n" + Files.readString(out));
        Files.delete(out);
        return JsonParser.parseString(json);
    }

    /**
     * Starts {@code tensorboard --logdir dir} on a free loopback port.
     *
     * @param logdir the folder to serve
     * @return the server, owned by the caller: close it
     */
    public static TensorBoard start(Path logdir) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = Files.createTempFile("tensorboard", ".log");
        Process p = new ProcessBuilder("python3", "-m", "tensorboard.main", "--logdir",
                logdir.toString(), "--host", "127.0.0.1", "--port", String.valueOf(port),
                "--load_fast", "false", "--reload_interval", "1")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new TensorBoard(p, log, port);
    }

    /**
     * GETs a path of the server's HTTP API once it answers with what {@code ready} accepts,
     * trying again every half second for at most 90 s.
     *
     * @param path e.g. {@code /data/plugin/scalars/tags}
     * @param ready accepts the parsed answer
     * @return the answer
     */
    public JsonElement getWhen(String path, Predicate<JsonElement> ready) throws Exception {
        return when(path, HttpRequest.newBuilder().GET(), ready);
    }

    /**
     * POSTs JSON to a path as the dashboard does (the HParams plugin's queries), once the
     * answer is what {@code ready} accepts, trying again for at most 90 s.
     *
     * @param path e.g. {@code /data/plugin/hparams/session_groups}
     * @param json the request
     * @param ready accepts the parsed answer
     * @return the answer
     */
    public JsonElement postWhen(String path, String json, Predicate<JsonElement> ready)
            throws Exception {
        return when(path, HttpRequest.newBuilder().header("Content-Type", "application/json")
                .header("X-XSRF-Protected", "1").POST(HttpRequest.BodyPublishers.ofString(json)),
                ready);
    }

    private JsonElement when(String path, HttpRequest.Builder request,
            Predicate<JsonElement> ready) throws Exception {
        long end = System.nanoTime() + READY.toNanos();
        String last = "no answer";
        while (System.nanoTime() < end) {
            assertTrue(process.isAlive(), "tensorboard exited:\n" + Files.readString(log));
            try {
                HttpResponse<String> r = http.send(request.uri(URI.create("http://127.0.0.1:"
                        + port + path)).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
                last = r.statusCode() + " " + r.body();
                if (r.statusCode() == 200) {
                    JsonElement answer = JsonParser.parseString(r.body());
                    if (ready.test(answer)) {
                        return answer;
                    }
                }
            } catch (IOException notUpYet) {
                last = notUpYet.toString();
            }
            Thread.sleep(500);
        }
        return fail("tensorboard did not answer " + path + " as expected within " + READY
                + "; last: " + last + "\n" + Files.readString(log));
    }

    /** Encodes query parameters. */
    public static String query(List<String> pairs) {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < pairs.size(); i += 2) {
            s.append(i == 0 ? "?" : "&").append(pairs.get(i)).append('=')
                    .append(URLEncoder.encode(pairs.get(i + 1), StandardCharsets.UTF_8));
        }
        return s.toString();
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
        Files.deleteIfExists(log);
    }
}

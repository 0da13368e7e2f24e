package dev.dml.ray.data.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.dml.DmlException;
import dev.dml.Vocabulary;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Expired session credentials, as S3 answers them: S3Proxy cannot issue session tokens, so a
 * loopback server answers every request with S3's own {@code ExpiredToken} error document, which
 * the AWS SDK reads as it reads AWS's. The user gets one line and the fix, and no retries are
 * spent on it.
 */
class S3ExpiredCredentialsTest {

    private static final byte[] EXPIRED = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error>"
            + "<Code>ExpiredToken</Code><Message>The provided token has expired.</Message>"
            + "<RequestId>4442587FB7D0A2F9</RequestId></Error>").getBytes(StandardCharsets.UTF_8);

    private static final String[] PROPERTIES = {"aws.accessKeyId", "aws.secretAccessKey",
        "aws.sessionToken", "aws.region"};
    private static final java.util.Map<String, String> SAVED = new java.util.HashMap<>();
    static HttpServer server;
    static final AtomicInteger REQUESTS = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
        server.createContext("/", exchange -> {
            REQUESTS.incrementAndGet();
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "application/xml");
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(400, head ? -1 : EXPIRED.length);
            if (!head) {
                exchange.getResponseBody().write(EXPIRED);
            }
            exchange.close();
        });
        server.start();
        for (String p : PROPERTIES) { // other tests in this JVM set their own
            SAVED.put(p, System.getProperty(p));
        }
        System.setProperty("aws.accessKeyId", "ASIAEXAMPLEEXPIRED");
        System.setProperty("aws.secretAccessKey", "expired-secret");
        System.setProperty("aws.sessionToken", "expired-session-token");
        System.setProperty("aws.region", "us-east-1");
    }

    @AfterAll
    static void stop() {
        server.stop(0);
        SAVED.forEach((p, v) -> {
            if (v == null) {
                System.clearProperty(p);
            } else {
                System.setProperty(p, v);
            }
        });
    }

    private static String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void expiredCredentialsAreOneLineWithTheFixAndNoRetry() {
        int before = REQUESTS.get();
        DmlException e = assertThrows(DmlException.class,
                () -> new S3Store(endpoint(), 2).list("s3://store/clicks/"));
        String said = e.speaking(Vocabulary.NOTEBOOK).getMessage();
        assertTrue(e.what().startsWith("The AWS credentials used for s3://store/clicks/ have"
                + " expired."), said);
        assertTrue(e.hint().startsWith("Refresh them (aws sso login"), said);
        assertEquals(2, said.strip().split("\n").length, said);
        assertEquals(1, REQUESTS.get() - before, "an expired token is not worth a retry");
    }
}

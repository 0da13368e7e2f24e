package dev.dml.ray.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The one listening socket against strays and peers: the cap, the pre-authentication time, the
 * count that shrinks, the hand-over, and a close that closes everything.
 */
class GuardedServerTest {

    private static final byte[] TOKEN = Frames.bytes(7);

    private final List<AutoCloseable> open = new ArrayList<>();
    private final Semaphore served = new Semaphore(0);

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** A server whose peers present {@link #TOKEN} and are then held until they hang up. */
    private GuardedServer<String> server(int cap, Duration preAuth,
            CompletableFuture<Socket> handedOver) throws IOException {
        GuardedServer<String> s = GuardedServer.open("test", GuardedServer.bind("127.0.0.1"),
                new GuardedServer.Limits(cap, preAuth),
                c -> Frames.sameToken(new DataInputStream(c.socket().getInputStream())
                        .readNBytes(TOKEN.length), TOKEN) ? "peer" : null,
                (c, peer) -> {
                    served.release();
                    if (handedOver != null) {
                        c.handOver();
                        handedOver.complete(c.socket());
                        return;
                    }
                    while (c.socket().getInputStream().read() >= 0) {
                        // holds the connection until the peer hangs up
                    }
                }, e -> { });
        open.add(s);
        return s;
    }

    private Socket connect(GuardedServer<?> s, boolean peer) throws IOException {
        Socket c = new Socket("127.0.0.1", s.port());
        open.add(c);
        c.setSoTimeout(5000);
        if (peer) {
            c.getOutputStream().write(TOKEN);
            c.getOutputStream().flush();
        }
        return c;
    }

    private static void assertClosedByServer(Socket c, String what) throws IOException {
        try {
            assertEquals(-1, c.getInputStream().read(), what);
        } catch (SocketTimeoutException e) {
            throw new AssertionError(what + ": still open", e);
        }
    }

    private static void awaitOpen(GuardedServer<?> s, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (s.openConnections() != n && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(n, s.openConnections());
    }

    @Test
    void aNewcomerAtTheCapPushesOutTheOldestSilentOneAndSilenceEndsAtThePreAuthTime()
            throws Exception {
        GuardedServer<String> s = server(2, Duration.ofSeconds(1), null);
        Socket first = connect(s, false);
        connect(s, false);
        awaitOpen(s, 2);
        Socket third = connect(s, false);
        assertClosedByServer(first, "the oldest silent connection");
        assertClosedByServer(third, "a silent connection after the pre-auth time");
        awaitOpen(s, 0);
    }

    @Test
    void whenPeersHoldEverySlotANewcomerIsRefusedAndCloseEndsThemAll() throws Exception {
        GuardedServer<String> s = server(2, Duration.ofSeconds(30), null);
        Socket a = connect(s, true);
        Socket b = connect(s, true);
        assertTrue(served.tryAcquire(2, 5, TimeUnit.SECONDS), "two peers served");
        assertClosedByServer(connect(s, false), "a newcomer beyond proven peers");
        a.close();
        awaitOpen(s, 1); // a peer that hung up leaves the count
        Socket c = connect(s, true);
        assertTrue(served.tryAcquire(1, 5, TimeUnit.SECONDS), "the third peer served");
        s.close();
        assertClosedByServer(b, "a peer after close()");
        assertClosedByServer(c, "a peer after close()");
    }

    @Test
    void aHandedOverConnectionOutlivesTheServer() throws Exception {
        CompletableFuture<Socket> handed = new CompletableFuture<>();
        GuardedServer<String> s = server(2, Duration.ofSeconds(30), handed);
        Socket client = connect(s, true);
        Socket kept = handed.get(5, TimeUnit.SECONDS);
        open.add(kept);
        awaitOpen(s, 0);
        s.close();
        kept.getOutputStream().write(42);
        kept.getOutputStream().flush();
        InputStream in = client.getInputStream();
        assertEquals(42, in.read());
    }
}

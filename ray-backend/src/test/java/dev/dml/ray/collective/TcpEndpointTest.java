package dev.dml.ray.collective;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataOutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A rank's endpoint against peers and strays that do not follow the protocol. */
class TcpEndpointTest {

    private static final long TOKEN = 43;

    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS), "threads leaked");
    }

    /** Threads serving connections to any endpoint in this JVM. */
    private static long endpointThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("dml-tcp-") && !t.getName().contains("accept"))
                .count();
    }

    /**
     * Issue 26 row 6: connections that never present the token take at most the endpoint's cap
     * of threads (a newcomer beyond it pushes the oldest silent one out) and are closed after
     * the pre-authentication time.
     */
    @Test
    void row6SilentConnectionsBeyondTheCapPinNoThreadsAndCloseAfterThePreAuthTime()
            throws Exception {
        TcpEndpoint e = new TcpEndpoint("127.0.0.1", TOKEN);
        open.add(e);
        int cap = TcpEndpoint.LIMITS.maxConnections();
        long before = endpointThreads();
        List<Socket> silent = new ArrayList<>();
        try {
            for (int i = 0; i < cap + 40; i++) {
                Socket s = new Socket("127.0.0.1", e.port());
                silent.add(s);
            }
            // the pushed-out connections' threads end as soon as they are scheduled: on a busy
            // 2-core machine that took more than 5 s
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            // the 40 oldest were pushed out at once
            silent.get(0).setSoTimeout(5000);
            assertEquals(-1, silent.get(0).getInputStream().read(), "the oldest was kept");
            while (System.nanoTime() < deadline && endpointThreads() - before > cap) {
                Thread.sleep(20);
            }
            assertTrue(endpointThreads() - before <= cap, (endpointThreads() - before)
                    + " threads for " + silent.size() + " silent connections, over " + cap);
            Socket last = silent.get(silent.size() - 1);
            last.setSoTimeout((int) TcpEndpoint.LIMITS.preAuthTimeout().toMillis() + 5000);
            long t0 = System.nanoTime();
            assertEquals(-1, last.getInputStream().read(), "a silent connection was kept");
            assertTrue(System.nanoTime() - t0 < TcpEndpoint.LIMITS.preAuthTimeout().toNanos()
                    + TimeUnit.SECONDS.toNanos(3), "closed late");
            // a connection the full accept queue held back is accepted, and timed, later: up
            // to one more pre-auth time after the last one closed, more on a loaded machine
            long settle = 2 * TcpEndpoint.LIMITS.preAuthTimeout().toNanos()
                    + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() - t0 < settle && e.openConnections() > 0) {
                Thread.sleep(20);
            }
            assertEquals(0, e.openConnections(), "closed connections are still counted");
        } catch (SocketTimeoutException x) {
            throw new AssertionError("a silent connection stayed open", x);
        } finally {
            for (Socket s : silent) {
                s.close();
            }
        }
    }

    /**
     * Issue 26 row 6: a peer that sends a length no sender writes (negative, or over any array)
     * is counted lost at once: the collective waiting for it fails in a line naming it, not at
     * the collective's timeout.
     */
    @Test
    void row6ABadLengthMarksThePeerLostAtOnce() throws Exception {
        for (int length : new int[] {-7, Integer.MAX_VALUE}) {
            TcpEndpoint e = new TcpEndpoint("127.0.0.1", TOKEN);
            open.add(e);
            Transport nowhere = (to, seq, step, payload) -> timeout -> { };
            Communicator rank0 = new Communicator(0, nowhere, Topology.singleNode(2),
                    Duration.ofSeconds(30));
            e.bind(rank0);
            Future<float[]> waiting = pool.submit(() -> rank0.allReduce(new float[10],
                    ReduceOp.SUM));
            long t0 = System.nanoTime();
            try (Socket peer = new Socket("127.0.0.1", e.port());
                    DataOutputStream out = new DataOutputStream(peer.getOutputStream())) {
                out.writeInt(TcpEndpoint.MAGIC);
                out.writeLong(TOKEN);
                out.writeInt(1);
                out.writeLong(0);
                out.writeInt(0);
                out.writeInt(length);
                out.flush();
                ExecutionException x = assertThrows(ExecutionException.class,
                        () -> waiting.get(10, TimeUnit.SECONDS), "length " + length);
                assertTrue(x.getCause() instanceof CollectiveException, x.toString());
                String line = x.getCause().getMessage();
                assertTrue(line.contains("rank 1 broke its connection (a chunk of " + length
                        + " bytes"), line);
            }
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(10), "the timeout");
        }
    }
}

package dev.dml.ray.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.cluster.DriverChannel.Kind;
import dev.dml.ray.cluster.DriverChannel.Message;
import java.awt.Point;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The kernel-to-driver channel against what a stray or hostile local process could send: it
 * never deserializes before the token is checked, never allocates what a length prefix claims,
 * refuses malformed frames without losing the channel, and admits only dml's payload classes.
 */
class DriverChannelTest {

    /** Two connected channels on loopback: {@code [0]} accepted, {@code [1]} connecting. */
    private static Socket[] pair(ServerSocket server) throws IOException {
        Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        return new Socket[] {server.accept(), client};
    }

    private static ServerSocket loopback() throws IOException {
        return new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    }

    /** A test on two connected channels: {@code a} accepted, {@code b} connecting. */
    private interface OnChannels {
        void run(DriverChannel a, DriverChannel b, Socket connecting) throws Exception;
    }

    /** Runs a test on two connected channels on loopback, and closes them. */
    private static void withChannels(OnChannels test) throws Exception {
        try (ServerSocket server = loopback()) {
            Socket[] s = pair(server);
            try (DriverChannel a = new DriverChannel(s[0]);
                    DriverChannel b = new DriverChannel(s[1])) {
                test.run(a, b, s[1]);
            }
        }
    }

    /** The kernel's side of a driver's start, on its own thread, as the launcher runs it. */
    private static CompletableFuture<DriverLauncher.Handshake> handshake(ServerSocket server,
            Process child, Path log) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return DriverLauncher.handshake(server, child, "right-token",
                        Duration.ofSeconds(60), log);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** Says what the driver {@code child} says when it starts: its token, then ready. */
    private static void startAsTheDriver(Socket s, Process child) throws IOException {
        DriverChannel driver = new DriverChannel(s);
        driver.send(new Message(Kind.HELLO, child.pid(), "right-token", null));
        driver.send(new Message(Kind.READY, 0, "local", null));
    }

    @Test
    void framesRoundTripWithAndWithoutTextAndPayload() throws Exception {
        withChannels((a, b, connecting) -> {
            b.send(new Message(Kind.HELLO, 42, "token", null));
            b.send(new Message(Kind.RESULT, 7, null, new byte[] {1, 2, 3}));
            Message hello = a.receive(DriverChannel.MAX_HELLO_FRAME);
            assertEquals(Kind.HELLO, hello.kind());
            assertEquals(42, hello.id());
            assertEquals("token", hello.text());
            assertNull(hello.payload());
            Message result = a.receive();
            assertEquals(7, result.id());
            assertArrayEquals(new byte[] {1, 2, 3}, result.payload());
        });
    }

    @Test
    void aClaimedLengthOverTheLimitIsRefusedBeforeAnyAllocation() throws Exception {
        try (ServerSocket server = loopback()) {
            Socket[] s = pair(server);
            try (DriverChannel a = new DriverChannel(s[0])) {
                new DataOutputStream(s[1].getOutputStream()).writeInt(Integer.MAX_VALUE - 65);
                IOException e = assertThrows(IOException.class,
                        () -> a.receive(DriverChannel.MAX_HELLO_FRAME));
                assertTrue(e.getMessage().startsWith("a frame of 2147483582 bytes, over the 1024"),
                        e.getMessage());
            } finally {
                s[1].close();
            }
        }
    }

    @Test
    void aMalformedFrameIsRefusedAndTheNextOneStillReads() throws Exception {
        withChannels((a, b, connecting) -> {
            DataOutputStream raw = new DataOutputStream(connecting.getOutputStream());
            raw.writeInt(3);
            raw.write(new byte[] {99, 0, 0}); // no such kind
            raw.flush();
            b.send(Kind.CANCEL, 5, null);
            assertThrows(DriverChannel.MalformedFrame.class, a::receive);
            assertEquals(Kind.CANCEL, a.receive().kind());
        });
    }

    @Test
    void aJobsShardsAreHeldOnceMoreWhileSerializedAndSent() throws Exception {
        // 32 MB of shards, as a job's runner carries them from the kernel to its driver; a
        // growing buffer, its copy and the frame's copy made 3 to 4 times that in the kernel
        ArrayList<byte[]> shards = new ArrayList<>(List.of(new byte[16 << 20],
                new byte[16 << 20]));
        shards.get(1)[5] = 7;
        long size = 32L << 20;
        long before = allocated();
        byte[] bytes = DriverChannel.serialize(shards);
        long serializing = allocated() - before;
        assertTrue(serializing < size + (4 << 20), serializing + " bytes allocated");
        withChannels((a, b, connecting) -> {
            CompletableFuture<Message> got = CompletableFuture.supplyAsync(() -> {
                try {
                    return a.receive();
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            long sending = allocated();
            b.send(new Message(Kind.REQUEST, 3, null, bytes));
            sending = allocated() - sending;
            assertTrue(sending < 1 << 20, sending + " bytes allocated");
            @SuppressWarnings("unchecked")
            List<byte[]> read = (List<byte[]>) DriverChannel.deserialize(
                    got.get(60, TimeUnit.SECONDS).payload());
            assertEquals(2, read.size());
            assertArrayEquals(shards.get(1), read.get(1));
        });
    }

    /** The bytes this thread has allocated so far. */
    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void payloadsAdmitDmlClassesAndJdkValuesOnly() throws Exception {
        List<WorkerInfo> workers = new ArrayList<>(List.of(new WorkerInfo(0, 1, 9, "h")));
        assertEquals(workers.get(0).toString(), ((List<?>) DriverChannel.deserialize(
                DriverChannel.serialize(workers))).get(0).toString());
        assertEquals(Duration.ofSeconds(3), DriverChannel.deserialize(
                DriverChannel.serialize(Duration.ofSeconds(3))));
        InvalidClassException e = assertThrows(InvalidClassException.class,
                () -> DriverChannel.deserialize(DriverChannel.serialize(new Point(1, 2))));
        assertTrue(e.getMessage().contains("REJECTED"), e.getMessage());
        assertThrows(InvalidClassException.class, () -> DriverChannel.deserialize(
                DriverChannel.serialize(new ArrayList<>(List.of(new Point(3, 4))))));
    }

    @Test
    void theHandshakeRefusesIntrudersAndAcceptsTheDriverAfterThem() throws Exception {
        Path log = Files.createTempFile("dml-handshake", ".log");
        Process child = new ProcessBuilder("sleep", "120").start();
        try (ServerSocket server = loopback()) {
            CompletableFuture<DriverLauncher.Handshake> done = handshake(server, child, log);
            int port = server.getLocalPort();
            // a huge length prefix, a Java serialization stream, a wrong token, a hang-up
            intrude(port, new byte[] {0x7f, (byte) 0xff, (byte) 0xff, 0x00});
            intrude(port, javaSerialized(new Canary()));
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                    DriverChannel c = new DriverChannel(s)) {
                c.send(new Message(Kind.HELLO, 1, "wrong-token", null));
                assertNull(c.receive(), "a wrong token was not refused");
            }
            intrude(port, new byte[0]);
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
                startAsTheDriver(s, child);
                DriverLauncher.Handshake h = done.get(30, TimeUnit.SECONDS);
                assertEquals("local", h.address());
                assertTrue(!Canary.read, "an intruder's bytes were deserialized");
                h.channel().close();
            }
        } finally {
            child.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    /**
     * Issue 26 row 12: a local process that connects first and stays silent does not hold the
     * driver up: the driver that connects after it starts at once, long before the start
     * timeout, and the squatter is closed when the start is over.
     */
    @Test
    void row12ASilentSquatterDoesNotFailTheDriversStart() throws Exception {
        Path log = Files.createTempFile("dml-handshake", ".log");
        Process child = new ProcessBuilder("sleep", "120").start();
        try (ServerSocket server = loopback();
                Socket squatter = new Socket(InetAddress.getLoopbackAddress(),
                        server.getLocalPort())) {
            CompletableFuture<DriverLauncher.Handshake> done = handshake(server, child, log);
            Thread.sleep(300); // the squatter is accepted first
            try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
                startAsTheDriver(s, child);
                DriverLauncher.Handshake h = done.get(10, TimeUnit.SECONDS);
                assertEquals("local", h.address());
                squatter.setSoTimeout(5000);
                assertEquals(-1, squatter.getInputStream().read(), "the squatter stayed");
                h.channel().close();
            }
        } finally {
            child.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }

    private static void intrude(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            s.shutdownOutput();
            assertEquals(-1, s.getInputStream().read(), "an intruder's connection stayed open");
        }
    }

    /** Notes when Java deserialization reads it: what an attacker's gadget would run. */
    static final class Canary implements java.io.Serializable {
        private static final long serialVersionUID = 1L;
        static volatile boolean read;

        private void readObject(java.io.ObjectInputStream in) throws IOException,
                ClassNotFoundException {
            in.defaultReadObject();
            read = true;
        }
    }

    private static byte[] javaSerialized(Object o) throws IOException {
        byte[] stream = DriverChannel.serialize(o);
        byte[] frame = new byte[4 + stream.length];
        java.nio.ByteBuffer.wrap(frame).putInt(stream.length).put(stream);
        return frame;
    }

    @Test
    void aDriverWhoseRepliesCannotBeReadIsKilledAndItsCallsFailAtOnce() throws Exception {
        Path log = Files.createTempFile("dml-reader", ".log");
        Process child = new ProcessBuilder("sleep", "120").start();
        try (ServerSocket server = loopback()) {
            Socket[] s = pair(server);
            DriverProcess driver = new DriverProcess(child, new DriverChannel(s[0]), log, "local",
                    Duration.ofMinutes(5), () -> { });
            CompletableFuture<String> call = driver.submit(new TestTasks.Echo("hi"));
            DataOutputStream raw = new DataOutputStream(s[1].getOutputStream());
            raw.writeInt(-5); // no frame can be that long: the framing is lost
            raw.flush();
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> call.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof DmlException, e.toString());
            assertTrue(e.getCause().getMessage().contains("could not read"), e.getMessage());
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the unreadable driver still runs");
            s[1].close();
        } finally {
            child.destroyForcibly();
            Files.deleteIfExists(log);
        }
    }
}

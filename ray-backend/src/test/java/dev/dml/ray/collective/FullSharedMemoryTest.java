package dev.dml.ray.collective;

import dev.dml.options.TransportKind;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 26, row 4: a {@code /dev/shm} too small for the rings, as in a Docker container (64 MB
 * by default). Each case runs a child JVM under {@code unshare -m} that mounts a small tmpfs
 * over {@code /dev/shm} in its own mount namespace, which goes away with the child: nothing
 * outside it sees the mount. The child runs a two-rank group on one node over real sockets
 * ({@link TcpTransportTest}'s fixture) and prints what happened; the test reads it.
 */
class FullSharedMemoryTest {

    private static final String SUM_RIGHT = "sum: right";

    /** What the child printed, one line each. */
    private static List<String> runChild(String tmpfsSize, String scenario, Path dir)
            throws Exception {
        assumeTrue(canMount(), "skipped: mounting a tmpfs in a new mount namespace needs root"
                + " and unshare(1), which this machine lacks");
        Path out = dir.resolve("child.out");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder("unshare", "-m", "sh", "-c",
                "mount -t tmpfs -o size=" + tmpfsSize + ",mode=1777 dml-test /dev/shm"
                        + " && exec \"$0\" -cp \"$1\" \"$2\" \"$3\"",
                java, System.getProperty("java.class.path"),
                FullSharedMemoryTest.class.getName(), scenario)
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the child JVM hangs");
        } finally {
            p.destroyForcibly();
        }
        List<String> lines = Files.readAllLines(out);
        assertEquals(0, p.exitValue(), "the child JVM died: " + lines);
        return lines;
    }

    private static boolean canMount() throws InterruptedException {
        try {
            Process p = new ProcessBuilder("unshare", "-m", "sh", "-c",
                    "mount -t tmpfs -o size=1m dml-probe /dev/shm").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false; // no unshare
        }
    }

    private static String line(List<String> lines, String prefix) {
        return lines.stream().filter(l -> l.startsWith(prefix)).findFirst()
                .orElse("(no '" + prefix + "' line in " + lines + ")");
    }

    /**
     * 1 MB of /dev/shm: the rings are refused when the links open, the two ranks say so
     * where the transport is reported, and the all-reduce goes over the sockets, right; a ring
     * made anyway fails at once with an IOException, not with a SIGBUS at its first write.
     */
    @Test
    void row4ATinyShmFallsBackToSocketsAndTheAllReduceIsRight(@TempDir Path dir)
            throws Exception {
        List<String> lines = runChild("1m", "tiny", dir);
        assertTrue(line(lines, "create:").startsWith("create: refused: java.io.IOException"),
                lines.toString());
        assertEquals(SUM_RIGHT, line(lines, "sum:"), lines.toString());
        for (int rank = 0; rank < 2; rank++) {
            String how = line(lines, "describe " + rank + ":");
            assertTrue(how.startsWith("describe " + rank + ": tcp; no shared memory with rank "
                    + (1 - rank) + " (/dev/shm has 1 MB free and a ring needs 32 MB; give it"
                    + " more (docker run --shm-size=1g))"), how);
            assertTrue(TransportKind.allDirect(how.substring(how.indexOf(':') + 2)), how);
        }
        assertEquals("shm bytes: 0", line(lines, "shm bytes:"), lines.toString());
        assertEquals("left: []", line(lines, "left:"), lines.toString());
    }

    /**
     * 40 MB of /dev/shm: both ranks see room for one ring when their links open, but not for
     * two; the ring made second cannot claim its memory and that link falls back to its
     * socket. Before, both rings were made sparse and the all-reduce's writes died of SIGBUS.
     */
    @Test
    void row4AShmThatFillsUpAfterTheCheckFallsBackAtCreationNotWithASigbus(@TempDir Path dir)
            throws Exception {
        List<String> lines = runChild("40m", "half", dir);
        assertEquals(SUM_RIGHT, line(lines, "sum:"), lines.toString());
        long fellBack = lines.stream().filter(l -> l.startsWith("describe ")
                && l.contains("no shared memory with rank")).count();
        assertTrue(fellBack >= 1, "a link says it has no ring: " + lines);
        assertTrue(lines.stream().anyMatch(l -> l.contains("has no room left for a ring of 32"
                + " MB (No space left on device); give it more (docker run --shm-size=1g)")),
                lines.toString());
        assertEquals("left: []", line(lines, "left:"), lines.toString());
    }

    /**
     * The child: {@code tiny} or {@code half}, run with a small tmpfs on /dev/shm.
     *
     * @param args the scenario
     */
    public static void main(String[] args) throws Exception {
        TcpTransportTest fixture = new TcpTransportTest();
        try {
            if (args[0].equals("tiny")) {
                tryARing();
            }
            int floats = args[0].equals("tiny") ? 1 << 20 : 12 << 20;
            List<Communicator> g = fixture.group(new Topology(List.of("a", "a")), List.of(),
                    null);
            List<float[]> in = ProbeWorker.randomInputs(2, floats, 7);
            List<float[]> out = fixture.runAll(g, in, (c, a) -> c.allReduce(a, ReduceOp.SUM));
            float[] mean = CommunicatorTest.mean(in);
            boolean right = true;
            for (int i = 0; i < mean.length; i++) {
                right &= Math.abs(2 * mean[i] - out.get(0)[i]) < 1e-5f
                        && out.get(0)[i] == out.get(1)[i];
            }
            System.out.println(right ? SUM_RIGHT : "sum: wrong");
            for (int r = 0; r < 2; r++) {
                System.out.println("describe " + r + ": "
                        + TcpTransportTest.transportOf(g.get(r)).describe());
            }
            System.out.println("shm bytes: "
                    + ((TcpTransport) TcpTransportTest.transportOf(g.get(0))).sharedMemoryBytes());
        } catch (Throwable t) {
            System.out.println("failed: " + t);
            t.printStackTrace(System.out);
        } finally {
            fixture.tearDown();
        }
        System.out.println("left: " + leftInShm());
        System.exit(0); // the endpoints' threads are daemons, but the pool's may linger
    }

    /** A ring bigger than the tmpfs, made and written to directly. */
    private static void tryARing() {
        try (ShmRing ring = ShmRing.create(ShmRing.fileFor(1, 0, 1), 4 << 20)) {
            ring.write(new byte[3 << 20]);
            System.out.println("create: made");
        } catch (IOException e) {
            System.out.println("create: refused: " + e);
        } catch (Throwable t) {
            System.out.println("create: died: " + t);
        }
    }

    /** Every file under /dev/shm: the tmpfs is the child's own, so all of it is ours. */
    private static List<String> leftInShm() throws IOException {
        List<String> files = new ArrayList<>();
        try (Stream<Path> s = Files.walk(Path.of("/dev/shm"))) {
            s.filter(Files::isRegularFile).forEach(p -> files.add(p.toString()));
        }
        return files;
    }
}

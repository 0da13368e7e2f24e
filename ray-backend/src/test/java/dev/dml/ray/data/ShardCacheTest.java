package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardCacheTest {

    @TempDir
    Path dir;

    private final AtomicInteger loads = new AtomicInteger();

    private Supplier<byte[]> bytes(int n, int fill) {
        return () -> {
            loads.incrementAndGet();
            return filled(n, fill);
        };
    }

    private static byte[] filled(int n, int fill) {
        byte[] b = new byte[n];
        java.util.Arrays.fill(b, (byte) fill);
        return b;
    }

    @Test
    void leastRecentlyUsedEntryGoesFirstWhenFull() throws Exception {
        ShardCache cache = new ShardCache(dir, 250);
        cache.get("a", bytes(100, 1));
        Thread.sleep(20); // file times order the entries
        cache.get("b", bytes(100, 2));
        Thread.sleep(20);
        assertArrayEquals(filled(100, 1), cache.get("a", bytes(100, 9))); // a: used again
        loads.set(0);
        Thread.sleep(20);
        cache.get("c", bytes(100, 3)); // 300 > 250: b, the least recently used, goes
        assertEquals(1, cache.evicted());
        assertEquals(200, cache.bytes());
        cache.get("a", bytes(100, 9));
        cache.get("c", bytes(100, 9));
        assertEquals(1, loads.get(), "a and c were hits");
        assertArrayEquals(filled(100, 2), cache.get("b", bytes(100, 2)));
        assertEquals(2, loads.get(), "b had been evicted, so it loaded again");
    }

    @Test
    void aRestartedWorkerFindsWhatTheLastOneRead() {
        ShardCache first = new ShardCache(dir, 1 << 20);
        first.get("unit-0", bytes(64, 7));
        first.get("unit-1", bytes(64, 8));
        assertEquals(2, first.misses());
        ShardCache again = new ShardCache(dir, 1 << 20); // a new process on the same node
        loads.set(0);
        assertArrayEquals(filled(64, 7), again.get("unit-0", bytes(64, 0)));
        assertArrayEquals(filled(64, 8), again.get("unit-1", bytes(64, 0)));
        assertEquals(2, again.hits());
        assertEquals(0, again.misses());
        assertEquals(0, loads.get(), "nothing was loaded again");
    }

    @Test
    void sizeZeroOrAnEntryLargerThanTheCacheKeepsNothing() throws Exception {
        ShardCache none = new ShardCache(dir.resolve("none"), 0);
        none.get("a", bytes(10, 1));
        none.get("a", bytes(10, 1));
        assertEquals(2, none.misses());
        ShardCache small = new ShardCache(dir.resolve("small"), 50);
        small.get("big", bytes(51, 1));
        assertEquals(0, small.bytes());
        try (var s = Files.list(dir.resolve("small"))) {
            assertEquals(0, s.count(), "no temporary file is left behind");
        }
    }
}

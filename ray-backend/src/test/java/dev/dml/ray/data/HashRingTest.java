package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class HashRingTest {

    @Test
    void hashIsStableAcrossRuns() {
        // Pinned values: a change here would reshuffle every user's shards.
        // (Also computed independently in Python: FNV-1a 64 + MurmurHash3 fmix64.)
        assertEquals(-6659360640848290163L, HashRing.hash("user-42"));
        assertEquals(381096947850851785L, HashRing.hash("k0"));
        int[] expected = new int[20];
        HashRing ring = new HashRing(4);
        for (int i = 0; i < 20; i++) {
            expected[i] = ring.workerFor("user-" + i);
        }
        HashRing again = new HashRing(4);
        for (int i = 0; i < 20; i++) {
            assertEquals(expected[i], again.workerFor("user-" + i));
        }
    }

    @Test
    void keysSpreadEvenly() {
        HashRing ring = new HashRing(4);
        int[] counts = new int[4];
        int n = 100_000;
        for (int i = 0; i < n; i++) {
            counts[ring.workerFor("key-" + i)]++;
        }
        for (int c : counts) {
            assertTrue(Math.abs(c - n / 4.0) < 0.15 * n / 4,
                    "unbalanced: " + java.util.Arrays.toString(counts));
        }
    }

    @Test
    void addingAWorkerMovesAboutOneNthToTheNewWorker() {
        int n = 100_000;
        for (int workers = 2; workers <= 8; workers *= 2) {
            HashRing before = new HashRing(workers);
            HashRing after = new HashRing(workers + 1);
            int moved = 0;
            for (int i = 0; i < n; i++) {
                String k = "key-" + i;
                int a = before.workerFor(k);
                int b = after.workerFor(k);
                if (a != b) {
                    moved++;
                    assertEquals(workers, b, "a moved key must go to the new worker");
                }
            }
            double frac = (double) moved / n;
            double ideal = 1.0 / (workers + 1);
            assertTrue(frac > 0.7 * ideal && frac < 1.3 * ideal,
                    workers + " -> " + (workers + 1) + " moved " + frac + ", ideal " + ideal);
        }
    }
}

package dev.dml.ray.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PrefetchTest {

    @Test
    void theNextItemLoadsWhileTheCallerWorksOnThisOne() throws Exception {
        List<CountDownLatch> started = List.of(new CountDownLatch(1), new CountDownLatch(1),
                new CountDownLatch(1));
        List<String> got = new ArrayList<>();
        try (Prefetch<String> p = new Prefetch<>(3, i -> {
            started.get(i).countDown();
            return "unit-" + i;
        }, "test-prefetch")) {
            while (p.hasNext()) {
                String item = p.next();
                int i = got.size();
                got.add(item);
                if (i + 1 < 3) {
                    // the caller has not asked for item i+1, yet it is being read already
                    assertTrue(started.get(i + 1).await(10, TimeUnit.SECONDS),
                            "item " + (i + 1) + " was not prefetched");
                }
            }
        }
        assertEquals(List.of("unit-0", "unit-1", "unit-2"), got);
    }

    @Test
    void aFailedLoadSurfacesFromNext() {
        try (Prefetch<String> p = new Prefetch<>(2, i -> {
            if (i == 1) {
                throw new DmlException("row group 1 is damaged.", "Rewrite the file.");
            }
            return "ok";
        }, "test-prefetch")) {
            assertEquals("ok", p.next());
            DmlException e = assertThrows(DmlException.class, p::next);
            assertEquals("row group 1 is damaged.", e.what());
            assertFalse(p.hasNext());
        }
    }
}

package dev.dml;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClosablesTest {

    @Test
    void closesEveryResourceAndKeepsLaterFailuresSuppressed() {
        List<String> closed = new ArrayList<>();
        IllegalStateException first = new IllegalStateException("first");
        RuntimeException thrown = assertThrows(RuntimeException.class, () ->
                Closeables.closeAll(() -> closed.add("a"), () -> {
                    closed.add("b");
                    throw first;
                }, null, () -> {
                    closed.add("c");
                    throw new IOException("later");
                }, () -> closed.add("d")));
        assertSame(first, thrown);
        assertEquals(List.of("a", "b", "c", "d"), closed);
        assertEquals(1, thrown.getSuppressed().length);
        assertEquals("later", thrown.getSuppressed()[0].getMessage());
    }

    @Test
    void aCheckedFailureIsWrapped() {
        IOException io = new IOException("disk");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Closeables.closeAll(List.of(() -> {
                    throw io;
                })));
        assertSame(io, e.getCause());
    }

    @Test
    void nothingToCloseIsFine() {
        Closeables.closeAll();
        assertArrayEquals(new Object[0], new Object[0]);
    }
}

package dev.dml.ray;

import ai.djl.ndarray.NDManager;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base for tests that use Arrow buffers and PyTorch arrays: each test gets a fresh root
 * allocator and NDManager, and closing the allocator afterwards fails the test with Arrow's
 * "Memory was leaked" if any buffer is still open.
 */
public abstract class NativeMemoryTest {

    /** The test's Arrow root allocator. */
    protected BufferAllocator root;
    /** The test's PyTorch NDManager. */
    protected NDManager manager;

    @BeforeEach
    void openNativeMemory() {
        root = new RootAllocator();
        manager = NDManager.newBaseManager("PyTorch");
    }

    @AfterEach
    void closeNativeMemory() {
        manager.close();
        root.close();
    }
}

package dev.dml.ray.collective;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class in Ray's LOCAL mode ({@link LocalRay}): started before the class's own
 * {@code @BeforeAll} methods, so they may run jobs, and stopped after its {@code @AfterAll}
 * methods. Use it as {@code @ExtendWith(LocalRayExtension.class)}.
 */
public final class LocalRayExtension implements BeforeAllCallback, AfterAllCallback {

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        LocalRay.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        LocalRay.stop();
    }
}

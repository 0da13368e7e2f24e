package dev.dml.ray.model;

import ai.djl.pytorch.jni.JniUtils;
import java.util.function.Supplier;

/** PyTorch's per-thread gradient recording, switched for one body and restored after it. */
final class GradMode {

    private GradMode() {}

    /** Runs {@code body} with recording {@code on}; the thread's mode is restored after. */
    static <T> T run(boolean on, Supplier<T> body) {
        boolean was = JniUtils.isGradMode();
        JniUtils.setGradMode(on);
        try {
            return body.get();
        } finally {
            JniUtils.setGradMode(was);
        }
    }

    /** Runs {@code body} without recording: in-place writes to parameters need it. */
    static void off(Runnable body) {
        run(false, () -> {
            body.run();
            return null;
        });
    }
}

package dev.dml.magics;

import java.util.Objects;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * What a sub-command may use of the kernel it runs in. Borrowed for one call: commands must not
 * keep it.
 */
public final class CommandContext {

    private final BaseKernel kernel;

    CommandContext(BaseKernel kernel) {
        this.kernel = Objects.requireNonNull(kernel, "kernel");
    }

    /** Shows display data in the running cell. */
    public void display(DisplayData data) {
        kernel.display(data);
    }

    /** The host kernel's name and version, e.g. {@code dml 0.1.0} or {@code java 1.0-a6}. */
    public String kernelDescription() {
        return kernel.getName() + " " + kernel.getVersion();
    }
}

package dev.dml.magics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.dflib.jjava.jupyter.Extension;
import org.dflib.jjava.jupyter.kernel.BaseKernel;

/**
 * Installs {@code %dml} and {@code %%dml} into any JJava-based kernel. Found through
 * {@code META-INF/services/org.dflib.jjava.jupyter.Extension}, so putting this jar on a stock
 * JJava kernel's class path is enough.
 */
public final class DmlExtension implements Extension {

    private final Map<BaseKernel, DmlMagics> installed = new ConcurrentHashMap<>();

    @Override
    public void install(BaseKernel kernel) {
        DmlMagics magics = DmlMagics.standard();
        installed.put(kernel, magics);
        kernel.getMagicsRegistry()
                .registerLineMagic(DmlMagics.MAGIC_NAME, magics)
                .registerCellMagic(DmlMagics.MAGIC_NAME, magics);
    }

    /** Stops the kernel's jobs and closes its cluster, if this session started one. */
    @Override
    public void uninstall(BaseKernel kernel) {
        DmlMagics magics = installed.remove(kernel);
        if (magics != null) {
            magics.close();
        }
    }
}

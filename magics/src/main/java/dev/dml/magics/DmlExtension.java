package dev.dml.magics;

import org.dflib.jjava.jupyter.Extension;
import org.dflib.jjava.jupyter.kernel.BaseKernel;

/**
 * Installs {@code %dml} and {@code %%dml} into any JJava-based kernel. Found through
 * {@code META-INF/services/org.dflib.jjava.jupyter.Extension}, so putting this jar on a stock
 * JJava kernel's class path is enough.
 */
public final class DmlExtension implements Extension {

    @Override
    public void install(BaseKernel kernel) {
        DmlMagics magics = DmlMagics.standard();
        kernel.getMagicsRegistry()
                .registerLineMagic(DmlMagics.MAGIC_NAME, magics)
                .registerCellMagic(DmlMagics.MAGIC_NAME, magics);
    }
}

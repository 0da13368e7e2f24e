package dev.dml.magics;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ServiceLoader;
import org.dflib.jjava.jupyter.Extension;
import org.junit.jupiter.api.Test;

class DmlExtensionTest {

    @Test
    void isFoundThroughTheServiceLoaderAsAStockJJavaKernelWouldFindIt() {
        boolean found = ServiceLoader.load(Extension.class).stream()
                .anyMatch(p -> p.type() == DmlExtension.class);
        assertTrue(found, "META-INF/services must name dev.dml.magics.DmlExtension");
    }

    @Test
    void installRegistersTheLineAndCellMagic() {
        RecordingKernel kernel = new RecordingKernel();
        new DmlExtension().install(kernel);
        assertTrue(kernel.getMagicsRegistry().getLineMagicNames().contains("dml"));
        assertTrue(kernel.getMagicsRegistry().getCellMagicNames().contains("dml"));
    }
}

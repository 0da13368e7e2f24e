package dev.dml.kernel.backend;

import dev.dml.kernel.exec.EvaluatorTestBase;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ai.djl.nn.Block;
import ai.djl.nn.core.Linear;
import dev.dml.DmlException;
import dev.dml.magics.TrainRequest;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.BlockFactory;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.UserBlock;
import dev.dml.ray.train.TrainSpec;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * {@code %dml train --block VAR} with a factory whose class a JShell cell defined: its bytecode
 * goes with the spec, and a class loader that has only dml's class path and those bytes builds
 * the block again, as a worker does. What cannot cross is refused in one line.
 */
public class CellBlockTest extends EvaluatorTestBase {

    /** A factory on the class path, as a jar on the kernel's would be. */
    public static final class Logistic implements BlockFactory {
        private static final long serialVersionUID = 1L;

        @Override
        public Block newBlock(int inputs, int outputs) {
            return Linear.builder().setUnits(outputs).build();
        }
    }

    private final Table fraud = SyntheticFraud.generate(500, 3);

    private NotebookData data() {
        return new NotebookData(name -> name.equals("fraud") ? java.util.Optional.of(fraud)
                : evaluator.variable(name), evaluator::variableNames, evaluator::userClasses);
    }

    private TrainSpec spec(String line) {
        return TrainRequests.spec(TrainRequest.parse(List.of(line.split(" ")), null), data());
    }

    @Test
    void aBlockFactoryDefinedInACellCrossesAsBytecode() throws Exception {
        evaluator.eval("""
                class Wide implements dev.dml.ray.model.BlockFactory {
                    public ai.djl.nn.Block newBlock(int in, int out) {
                        var b = new ai.djl.nn.SequentialBlock();
                        b.add(ai.djl.nn.core.Linear.builder().setUnits(2 * in).build());
                        return b.add(ai.djl.nn.core.Linear.builder().setUnits(out).build());
                    }
                }""");
        evaluator.eval("var net = new Wide();");
        TrainSpec spec = spec("fraud --label is_fraud --block net");
        assertEquals(ModelSpec.Family.CUSTOM, spec.model().family());
        assertEquals(1, spec.model().layerCount());
        UserBlock block = spec.model().block();
        assertTrue(evaluator.cellClasses().keySet().stream().anyMatch(n -> n.endsWith("$Wide")));
        // as Ray sends it: bytes, read back where no JShell loader exists
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(block);
        }
        UserBlock sent = (UserBlock) new ObjectInputStream(
                new ByteArrayInputStream(bytes.toByteArray())).readObject();
        BlockFactory there = sent.factory();
        assertEquals("dml-cell-classes", there.getClass().getClassLoader().getName());
        assertTrue(there.newBlock(31, 2) instanceof ai.djl.nn.SequentialBlock);
    }

    /**
     * A factory whose class comes from a jar added with {@code %jars} (as {@code %maven} adds
     * its jars): the jar's classes go with the spec, and a loader without the jar builds it.
     */
    @Test
    void aBlockFactoryFromAnAddedJarCrossesAsBytecode(@org.junit.jupiter.api.io.TempDir
            java.nio.file.Path dir) throws Exception {
        java.nio.file.Path src = dir.resolve("src/nets/Narrow.java");
        java.nio.file.Files.createDirectories(src.getParent());
        java.nio.file.Files.writeString(src, """
                package nets;
                public class Narrow implements dev.dml.ray.model.BlockFactory {
                    public ai.djl.nn.Block newBlock(int in, int out) {
                        return ai.djl.nn.core.Linear.builder().setUnits(out).build();
                    }
                }""");
        java.nio.file.Path classes = dir.resolve("classes");
        assertEquals(0, javax.tools.ToolProvider.getSystemJavaCompiler().run(null, null, null,
                "-cp", System.getProperty("java.class.path"), "-d", classes.toString(),
                src.toString()));
        java.nio.file.Path jar = dir.resolve("nets.jar");
        try (var out = new java.util.jar.JarOutputStream(java.nio.file.Files
                .newOutputStream(jar))) {
            out.putNextEntry(new java.util.jar.JarEntry("nets/Narrow.class"));
            out.write(java.nio.file.Files.readAllBytes(classes.resolve("nets/Narrow.class")));
            out.closeEntry();
        }
        evaluator.addToClasspath(jar.toString());
        evaluator.eval("var narrow = new nets.Narrow();");
        UserBlock block = spec("fraud --label is_fraud --block narrow").model().block();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(block);
        }
        BlockFactory there = ((UserBlock) new ObjectInputStream(
                new ByteArrayInputStream(bytes.toByteArray())).readObject()).factory();
        assertEquals("nets.Narrow", there.getClass().getName());
        assertEquals("dml-cell-classes", there.getClass().getClassLoader().getName());
        assertTrue(there.newBlock(31, 2) instanceof Linear);
    }

    @Test
    void aFactoryOnTheClassPathNeedsNoBytecode() {
        TrainSpec spec = TrainRequests.spec(TrainRequest.parse(List.of("fraud", "--label",
                "is_fraud", "--block", "net"), null), new NotebookData(name -> java.util.Optional
                        .ofNullable(Map.<String, Object>of("fraud", fraud, "net", new Logistic())
                                .get(name)), () -> List.of("fraud", "net"), Map::of));
        assertEquals(ModelSpec.Family.CUSTOM, spec.model().family());
    }

    @Test
    void aBlockItselfIsRefusedInOneLine() {
        evaluator.eval("var plain = new ai.djl.nn.SequentialBlock();");
        DmlException e = assertThrows(DmlException.class,
                () -> spec("fraud --label is_fraud --block plain"));
        assertEquals("The variable 'plain' given as --block is a SequentialBlock, not a"
                + " dev.dml.ray.model.BlockFactory.", e.what());
        assertTrue(e.hint().startsWith("A block cannot cross to the workers"), e.hint());
    }

    @Test
    void blockAndHiddenTogetherAreRefusedInOneLine() {
        evaluator.eval("var lr = new dev.dml.kernel.backend.CellBlockTest.Logistic();");
        DmlException e = assertThrows(DmlException.class,
                () -> spec("fraud --label is_fraud --block lr --hidden 8"));
        assertEquals("--block trains your own block, and --hidden sizes a built-in one.",
                e.speaking(dev.dml.Vocabulary.NOTEBOOK).what());
    }
}

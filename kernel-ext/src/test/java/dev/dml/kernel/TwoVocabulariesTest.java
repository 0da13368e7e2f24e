package dev.dml.kernel;

import dev.dml.kernel.exec.ErrorLines;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The same faults, typed once as {@code %dml train} in a cell and once as Java in a cell of the
 * same kernel: each message names the options in the words of the surface the user typed them
 * on. Every fault is found before any cluster or worker starts.
 */
class TwoVocabulariesTest {

    private static DmlKernel kernel;

    @BeforeAll
    static void start() {
        kernel = DmlKernel.builder().build();
        kernel.onStartup();
        kernel.evalRaw("import dev.dml.ray.data.SyntheticFraud;\nimport dev.dml.ray.train.*;\n"
                + "import dev.dml.ray.model.ModelSpec;\nimport dev.dml.options.TrainOptions;\n"
                + "import java.util.List;");
        kernel.evalRaw("var fraud = SyntheticFraud.generate(2_000, 7);");
    }

    @AfterAll
    static void stop() {
        kernel.onShutdown(false);
    }

    /** A fault as a magic and as Java, and the line each one's cell shows. */
    private record Fault(String magicOptions, String builderCalls, String notebookLine,
            String javaLine) {}

    private static final List<Fault> FAULTS = List.of(
            // a batch larger than a worker's rows now trains smaller batches; accumulating
            // more rows than a worker has is still refused
            new Fault("--workers 4 --batch-size 400 --accumulate 2",
                    ".optWorkers(4).optBatchSize(400).opt(TrainOptions.ACCUMULATE, 2)",
                    "Lower --batch-size or --accumulate, or train on more rows.",
                    "Lower optBatchSize or opt(TrainOptions.ACCUMULATE, ...), or train on more"
                            + " rows."),
            new Fault("--epochs 0", ".optEpochs(0)",
                    "--epochs must be a whole number of at least 1, got '0'.",
                    "optEpochs must be a whole number of at least 1, got 0."),
            new Fault("--resume", ".optResume(true)",
                    "--resume needs --checkpoint-dir.",
                    "optResume needs optCheckpoints."),
            new Fault("--stages 2", ".opt(TrainOptions.STAGES, List.of(2))",
                    "Add --strategy pipeline (or model, hybrid), or drop those options.",
                    "Add optStrategy(pipeline) (or model, hybrid), or drop those options."),
            new Fault("--model logistic --hidden 8",
                    ".setModel(ModelSpec.Family.LOGISTIC_REGRESSION, 8)",
                    "--hidden sets the hidden layers of an mlp or a cnn, not of a logistic model.",
                    "setModel(family, hidden...) sets the hidden layers of an mlp or a cnn, not"
                            + " of a logistic model."));

    @Test
    void eachSurfaceNamesTheOptionsItsUserTyped() {
        for (Fault f : FAULTS) {
            String cell = shown("%dml train fraud --label is_fraud " + f.magicOptions());
            String java = shown("TrainSpec.builder().setTable(fraud)"
                    + ".setColumns(SyntheticFraud.selection())" + f.builderCalls() + ".build();");
            assertContainsLine(cell, f.notebookLine());
            assertContainsLine(java, f.javaLine());
        }
    }

    /** What the cell's error shows (Jupyter's evalue). */
    private static String shown(String cell) {
        return ErrorLines.value(assertThrows(RuntimeException.class, () -> kernel.evalRaw(cell)));
    }

    private static void assertContainsLine(String message, String line) {
        List<String> lines = message.lines().map(l -> l.replaceFirst("^%dml train: ", ""))
                .toList();
        assertEquals(true, lines.contains(line), "no line '" + line + "' in:\n" + message);
    }
}

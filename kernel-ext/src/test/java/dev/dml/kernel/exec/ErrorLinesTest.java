package dev.dml.kernel.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.magic.UndefinedMagicException;
import org.junit.jupiter.api.Test;

class ErrorLinesTest extends EvaluatorTestBase {


    @Test
    void userTraceShowsCellFramesWithSnippetLinesAndNothingOfTheKernel() {
        evaluator.eval("void explode() {\n  throw new IllegalStateException(\"deep\");\n}");
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> evaluator.eval("explode();"));
        List<String> lines = ErrorLines.thrown(e, List.of());
        assertEquals("java.lang.IllegalStateException: deep", lines.get(0));
        assertTrue(lines.get(1).matches("\tat explode \\(#\\d+:2\\)"), lines.toString());
        assertTrue(lines.get(2).matches("\tat cell \\(#\\d+:1\\)"), lines.toString());
        assertEquals(3, lines.size(), lines.toString());
        assertEquals("IllegalStateException", ErrorLines.name(e));
        assertEquals("deep", ErrorLines.value(e));
    }

    @Test
    void causesAreListed() {
        RuntimeException e = assertThrows(RuntimeException.class, () -> evaluator.eval(
                "throw new RuntimeException(\"outer\", new java.io.IOException(\"inner\"));"));
        List<String> lines = ErrorLines.thrown(e, List.of());
        assertTrue(lines.contains("Caused by: java.io.IOException: inner"), lines.toString());
    }

    @Test
    void dmlErrorsShowOnlyTheirMessageEvenWhenWrapped() {
        RuntimeException wrapped = new RuntimeException("wrapper",
                new DmlException("unknown sub-command 'trian'.", "Did you mean '%dml train'?"));
        List<String> lines = ErrorLines.thrown(wrapped, List.of());
        assertEquals(List.of("dml: unknown sub-command 'trian'.", "Did you mean '%dml train'?"),
                lines);
        assertEquals("DmlException", ErrorLines.name(wrapped));
        assertFalse(ErrorLines.value(wrapped).contains("wrapper"));
    }

    @Test
    void unknownMagicListsTheKnownOnes() {
        List<String> lines = ErrorLines.thrown(new UndefinedMagicException("foo", true),
                List.of("jars", "dml"));
        assertEquals(List.of("Unknown magic %foo. Known magics: %dml, %jars."
                + " Run %dml help for dml's commands."), lines);
    }

    @Test
    void compileErrorFromAMagicFreeCellNamesTheSymbol() {
        CellException.CompilationException e = assertThrows(
                CellException.CompilationException.class,
                        () -> evaluator.eval("undefinedName + 1"));
        assertEquals("CompilationException", ErrorLines.name(e));
        assertTrue(e.lines().contains("  symbol:   variable undefinedName"), e.lines().toString());
    }
}

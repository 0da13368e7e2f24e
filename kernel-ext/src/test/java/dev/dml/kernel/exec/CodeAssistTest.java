package dev.dml.kernel.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class CodeAssistTest extends EvaluatorTestBase {

    private static CodeAssist assist;

    @BeforeAll
    static void openAssist() {
        assist = new CodeAssist(evaluator.analysis());
    }

    @Test
    void completesAStaticMethodAndReplacesOnlyTheTypedPrefix() {
        ReplacementOptions options = assist.complete("Math.ab", 7);
        assertTrue(options.getReplacements().contains("abs("),
                options.getReplacements().toString());
        assertEquals(5, options.getSourceStart());
        assertEquals(7, options.getSourceEnd());
    }

    @Test
    void completesInsideTheSecondSnippetOfACell() {
        String code = "int a = 1;\nMath.ab";
        ReplacementOptions options = assist.complete(code, code.length());
        assertTrue(options.getReplacements().contains("abs("));
        assertEquals(code.indexOf("ab", 12), options.getSourceStart());
    }

    @Test
    void completesVariablesDeclaredInEarlierCells() {
        evaluator.eval("int trainingSteps = 10;");
        ReplacementOptions options = assist.complete("trainingS", 9);
        assertTrue(options.getReplacements().contains("trainingSteps"));
    }

    @Test
    void inspectsAMethodInsideACall() {
        String doc = assist.inspect("Math.abs(", 9);
        assertNotNull(doc);
        assertTrue(doc.contains("Math.abs(int a)"), doc);
    }

    @Test
    void inspectsABareMethodNameToo() {
        String doc = assist.inspect("Math.abs", 6);
        assertNotNull(doc);
        assertTrue(doc.contains("abs("), doc);
    }

    @Test
    void inspectsAVariableAsItsType() {
        evaluator.eval("var names = new java.util.ArrayList<String>();");
        assertEquals("names : ArrayList<String>", assist.inspect("names", 2));
    }

    @Test
    void inspectingNothingFindsNothing() {
        assertNull(assist.inspect("   ", 1));
    }

    @Test
    void isCompleteAnswers() {
        assertEquals(BaseKernel.IS_COMPLETE_YES, assist.isComplete("int x = 1;"));
        assertEquals(BaseKernel.IS_COMPLETE_YES, assist.isComplete("6 * 7"));
        assertEquals("    ", assist.isComplete("for (int i = 0; i < 3; i++) {"));
        assertEquals("", assist.isComplete("String s = \"a\" +"));
        assertEquals(BaseKernel.IS_COMPLETE_BAD, assist.isComplete("int x = ;"));
        assertEquals(BaseKernel.IS_COMPLETE_YES, assist.isComplete("%%dml train\nepochs: 2"));
    }
}

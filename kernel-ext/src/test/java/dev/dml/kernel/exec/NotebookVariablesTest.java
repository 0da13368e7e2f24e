package dev.dml.kernel.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** %dml reads notebook variables as objects and binds results to new variables. */
class NotebookVariablesTest extends EvaluatorTestBase {

    @Test
    void readsAVariableAsTheObjectItself() {
        evaluator.eval("import java.util.*;\nvar names = new ArrayList<String>(List.of(\"a\"));");
        Object value = evaluator.variable("names").orElseThrow();
        assertEquals(List.of("a"), value);
        assertTrue(evaluator.variableNames().contains("names"));
        assertTrue(evaluator.variable("nope").isEmpty());
    }

    @Test
    void aLaterDeclarationWins() {
        evaluator.eval("int count = 1;");
        evaluator.eval("int count = 2;");
        assertEquals(2, evaluator.variable("count").orElseThrow());
    }

    @Test
    void bindingsBecomeVariablesOfTheirPublicType() {
        Bindings bindings = new Bindings();
        StringBuilder value = new StringBuilder("bound");
        bindings.bind("result", value);
        List<String> declarations = bindings.drain();
        assertEquals(1, declarations.size());
        declarations.forEach(evaluator::eval);
        assertSame(value, evaluator.variable("result").orElseThrow());
        assertEquals("bound!", evaluator.eval("result.append(\"!\").toString()").value());
        assertTrue(bindings.drain().isEmpty());
    }
}

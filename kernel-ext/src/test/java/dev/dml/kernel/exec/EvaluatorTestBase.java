package dev.dml.kernel.exec;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** One JShell (slow to start) per test class, on this JVM's class path, closed afterwards. */
public abstract class EvaluatorTestBase {

    protected static JShellEvaluator evaluator;

    @BeforeAll
    static void openEvaluator() {
        evaluator = JShellEvaluator.open(System.getProperty("java.class.path"));
    }

    @AfterAll
    static void closeEvaluator() {
        evaluator.close();
    }
}

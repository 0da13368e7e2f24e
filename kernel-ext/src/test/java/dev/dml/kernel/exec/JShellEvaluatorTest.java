package dev.dml.kernel.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class JShellEvaluatorTest extends EvaluatorTestBase {


    private static Object value(String code) {
        JShellEvaluator.Value v = evaluator.eval(code);
        assertTrue(v.present(), "expected a value from: " + code);
        return v.value();
    }

    @Test
    void expressionWithoutSemicolonHasAValue() {
        assertEquals(42, value("6 * 7"));
    }

    @Test
    void trailingSemicolonHidesTheValue() {
        assertFalse(evaluator.eval("6 * 7;").present());
    }

    @Test
    void declarationsCarryOverBetweenCells() {
        evaluator.eval("record Point(int x, int y) { int sum() { return x + y; } }");
        evaluator.eval("var p = new Point(2, 3);");
        assertEquals(5, value("p.sum()"));
    }

    @Test
    void lastSnippetOfAMultiSnippetCellGivesTheValue() {
        assertEquals("ab", value("String a = \"a\";\nString b = \"b\";\na + b"));
    }

    @Test
    void statementsHaveNoValue() {
        assertFalse(evaluator.eval("int unused = 3;").present());
        assertFalse(evaluator.eval("for (int i = 0; i < 2; i++) { }").present());
    }

    @Test
    void valueIsTheLiveObjectNotItsString() {
        Object list = value("new java.util.ArrayList<>(List.of(1, 2))");
        assertEquals(List.of(1, 2), list);
    }

    @Test
    void nullExpressionIsAPresentNullValue() {
        JShellEvaluator.Value v = evaluator.eval("(String) null");
        assertTrue(v.present());
        assertEquals(null, v.value());
    }

    @Test
    void compileErrorMarksTheOffendingCode() {
        CellException.CompilationException e = assertThrows(
                CellException.CompilationException.class,
                () -> evaluator.eval("String s = \"x\";\ns.nope()"));
        List<String> lines = e.lines();
        assertEquals("error: cannot find symbol", lines.get(0));
        int source = lines.indexOf("    s.nope()");
        assertTrue(source > 0, lines.toString());
        assertEquals("    ^^^^^^", lines.get(source + 1));
    }

    @Test
    void laterSnippetsDoNotRunAfterAnError() {
        evaluator.eval("int counter = 0;");
        assertThrows(CellException.CompilationException.class,
                () -> evaluator.eval("counter++;\nint bad = ;\ncounter++;"));
        assertEquals(1, value("counter"));
    }

    @Test
    void userExceptionIsRethrownWithItsOwnType() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> evaluator.eval("throw new IllegalStateException(\"boom\");"));
        assertEquals("boom", e.getMessage());
    }

    @Test
    void checkedExceptionIsRethrownUnchanged() throws Exception {
        Throwable e = assertThrows(Exception.class,
                () -> evaluator.eval("throw new java.io.IOException(\"disk\");"));
        assertEquals(java.io.IOException.class, e.getClass());
    }

    @Test
    void errorIsWrappedSoTheProtocolLayerCatchesIt() {
        CellException.JavaError e = assertThrows(CellException.JavaError.class,
                () -> evaluator.eval("throw new AssertionError(\"bad\");"));
        assertSame(AssertionError.class, e.getCause().getClass());
    }

    @Test
    void kernelStaysUsableAfterAnException() {
        assertThrows(ArrayIndexOutOfBoundsException.class,
                () -> evaluator.eval("int[] arr = new int[3];\narr[5]"));
        assertEquals(3, value("arr.length"));
    }

    /** Runs a cell, interrupts it once it runs, and returns what it threw (null: nothing). */
    private Throwable interrupted(String code) throws Exception {
        return interrupted(code, 1);
    }

    /**
     * Runs a cell, interrupts it {@code clicks} times 200 ms apart once it runs (the stop
     * button clicked again), and returns what it threw (null: nothing).
     */
    private Throwable interrupted(String code, int clicks) throws Exception {
        CompletableFuture<Throwable> cell = CompletableFuture.supplyAsync(() -> {
            try {
                evaluator.eval(code);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        waitUntilRunning();
        evaluator.interrupt();
        for (int i = 1; i < clicks; i++) {
            Thread.sleep(200);
            evaluator.interrupt();
        }
        return cell.get(20, TimeUnit.SECONDS);
    }

    @Test
    void interruptStopsABusyLoopAndTheNextCellRuns() throws Exception {
        Throwable thrown = interrupted("long spins = 0;\nwhile (true) { spins++; }");
        assertTrue(thrown instanceof CellException.Interrupted, String.valueOf(thrown));
        assertEquals(2, value("1 + 1"));
    }

    @Test
    void interruptStopsASleepingCell() throws Exception {
        assertTrue(interrupted("Thread.sleep(600_000);") instanceof CellException.Interrupted);
    }

    /**
     * Cooperative code (dml's commands) that cleans up for longer than the kernel's grace after
     * an interrupt is neither interrupted again nor stopped by force: the cell ends with the
     * line its own code threw.
     */
    @Test
    void cooperativeCodeFinishesItsCleanUpBeforeAnyForcedStop() throws Exception {
        Throwable thrown = interrupted("try (var scope = dev.dml.CellThread.cooperating()) {\n"
                + "  try { Thread.sleep(600_000); } catch (InterruptedException e) {\n"
                + "    long end = System.nanoTime() + 2_500_000_000L;\n"
                + "    while (System.nanoTime() < end) { }\n"
                + "    throw new dev.dml.DmlException(\"cleaned up\", \"run it again\");\n"
                + "  }\n"
                + "}", 2);
        assertTrue(String.valueOf(thrown).contains("cleaned up"), String.valueOf(thrown));
        assertEquals(2, value("1 + 1"));
    }

    @Test
    void backgroundThreadsStartedByACellDoNotBlockIt() {
        assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
            evaluator.eval("var latch = new java.util.concurrent.CountDownLatch(1);\n"
                    + "Thread bg = new Thread(() -> { try { latch.await(); }"
                    + " catch (InterruptedException e) { } });\n"
                    + "bg.setDaemon(true);\nbg.start();");
        });
        evaluator.eval("latch.countDown();");
    }

    private static void waitUntilRunning() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!evaluator.isCellRunning()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the cell never started");
            }
            Thread.sleep(10);
        }
        Thread.sleep(100); // let it get into its loop
    }
}

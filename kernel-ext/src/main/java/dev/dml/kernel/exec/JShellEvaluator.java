package dev.dml.kernel.exec;

import java.io.File;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import jdk.jshell.DeclarationSnippet;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.JShellException;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.SourceCodeAnalysis.CompletionInfo;
import org.dflib.jjava.jupyter.kernel.BaseNotebookStatics;
import jdk.jshell.UnresolvedReferenceException;
import jdk.jshell.VarSnippet;

/**
 * Evaluates cells with JShell in this JVM: splits a cell into snippets, runs them in order and
 * hands back the value of a trailing expression.
 */
public final class JShellEvaluator implements AutoCloseable {

    /** Imports every cell starts with, as in JJava and IJava. */
    static final List<String> DEFAULT_IMPORTS = List.of(
            "import java.util.*;",
            "import java.util.function.*;",
            "import java.util.stream.*;",
            "import java.io.*;",
            "import java.math.*;",
            "import java.nio.file.*;",
            "import java.time.*;",
            "import static org.dflib.jjava.jupyter.kernel.BaseNotebookStatics.*;",
            "import static dev.dml.kernel.DmlNotebook.*;");

    /** The value of a cell: present only when the cell ends in an expression. */
    public record Value(boolean present, Object value) {
        static final Value NONE = new Value(false, null);
    }

    private final JShell shell;
    private final CellExecutionControl control;
    private final AddedClasses added = new AddedClasses();

    private JShellEvaluator(JShell shell, CellExecutionControl control) {
        this.shell = shell;
        this.control = control;
    }

    /**
     * Opens a JShell whose compiler and class loader see the given class path (usually the
     * kernel's own, so cells can use every jar the kernel runs with).
     */
    public static JShellEvaluator open(String classPath) {
        CellExecutionControl control = new CellExecutionControl();
        JShell shell = JShell.builder()
                .executionEngine(new CellExecutionControl.Provider(control), Map.of())
                .compilerOptions("-Xlint:none", "-proc:none")
                .build();
        JShellEvaluator evaluator = new JShellEvaluator(shell, control);
        for (String entry : classPath.split(File.pathSeparator)) {
            if (!entry.isBlank()) {
                shell.addToClasspath(entry);
            }
        }
        for (String imp : DEFAULT_IMPORTS) {
            evaluator.eval(imp);
        }
        return evaluator;
    }

    /** @return the bytecode of the classes the cells defined, by binary name */
    public Map<String, byte[]> cellClasses() {
        return control.cellClasses();
    }

    /**
     * Returns the bytecode of the classes only this kernel has: those of the jars and folders
     * added to it, and the cells' (which win where both define a name).
     *
     * @return bytecode by binary class name
     */
    public Map<String, byte[]> userClasses() {
        Map<String, byte[]> all = added.classes();
        all.putAll(control.cellClasses());
        return all;
    }

    /** The JShell instance, for code assistance. */
    public SourceCodeAnalysis analysis() {
        return shell.sourceCodeAnalysis();
    }

    /** Adds a jar or folder to what cells compile and run against. */
    public void addToClasspath(String path) {
        shell.addToClasspath(path);
        added.add(path);
    }

    /**
     * Runs every snippet of the cell in order and returns the last one's value.
     *
     * @throws CellException when a snippet does not compile, throws, or is interrupted; the
     *     snippets after it do not run
     */
    public Value eval(String code) {
        control.reset();
        control.clearParked();
        Value last = Value.NONE;
        String remaining = code;
        while (!remaining.isBlank()) {
            CompletionInfo info = shell.sourceCodeAnalysis().analyzeCompletion(remaining);
            boolean complete = info.completeness().isComplete();
            String source = complete ? info.source() : remaining;
            String typed = remaining.substring(0, remaining.length() - info.remaining().length());
            // As in IPython, a trailing semicolon typed by the user hides the value.
            boolean showValue = !complete || !typed.strip().endsWith(";");
            last = evalSnippet(source, showValue);
            if (control.isStopRequested()) {
                throw new CellException.Interrupted();
            }
            remaining = complete ? info.remaining() : "";
        }
        return last;
    }

    private Value evalSnippet(String source, boolean showValue) {
        Value value = Value.NONE;
        for (SnippetEvent event : shell.eval(source)) {
            if (event.causeSnippet() != null) {
                continue; // a dependent snippet re-evaluated: not this cell's output
            }
            Snippet snippet = event.snippet();
            if (event.status() == Snippet.Status.REJECTED) {
                List<String> lines = ErrorLines.compileError(
                        snippet.source(), shell.diagnostics(snippet).toList());
                shell.drop(snippet);
                throw new CellException.CompilationException(lines);
            }
            if (event.exception() != null) {
                throw sneaky(thrown(event.exception()));
            }
            if (event.status() == Snippet.Status.RECOVERABLE_DEFINED
                    || event.status() == Snippet.Status.RECOVERABLE_NOT_DEFINED) {
                System.err.println(unresolvedNote(snippet));
            }
            if (showValue && control.isKey(event.value()) && isExpression(snippet)) {
                value = new Value(true, control.take(event.value()));
            }
        }
        return value;
    }

    /**
     * The exception to surface for a failed snippet: the user's own exception object when
     * there is one, so that the notebook names its real type.
     */
    private Throwable thrown(JShellException exception) {
        if (exception instanceof EvalException eval
                && control.take(eval.getMessage()) instanceof Throwable taken) {
            Throwable original = unwrapMagicFailure(taken);
            useSnippetLineNumbers(original, eval);
            return original instanceof Error error ? new CellException.JavaError(error) : original;
        }
        if (exception instanceof UnresolvedReferenceException unresolved) {
            return new IllegalStateException(unresolvedNote(unresolved.getSnippet()));
        }
        return exception;
    }

    /** JJava wraps what a magic throws in a RuntimeException of its own: surface the magic's. */
    private static Throwable unwrapMagicFailure(Throwable thrown) {
        StackTraceElement[] frames = thrown.getStackTrace();
        boolean fromMagicCall = frames.length > 0
                && frames[0].getClassName().equals(BaseNotebookStatics.class.getName());
        return fromMagicCall && thrown.getCause() != null ? thrown.getCause() : thrown;
    }

    /**
     * JShell maps frames of its wrapper classes to snippet lines ({@code #12:3}) in the traces it
     * reports; give the user's exception those readable frames.
     */
    private static void useSnippetLineNumbers(Throwable original, EvalException eval) {
        Throwable t = original;
        Throwable mapped = eval;
        while (t != null && mapped != null) {
            if (mapped.getStackTrace().length > 0) {
                t.setStackTrace(mapped.getStackTrace());
            }
            t = t.getCause();
            mapped = mapped.getCause();
        }
    }

    /** Rethrows a checked exception from cell code unchanged; the kernel reports it as is. */
    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }

    private String unresolvedNote(Snippet snippet) {
        List<String> missing = snippet instanceof DeclarationSnippet declaration
                ? shell.unresolvedDependencies(declaration).toList()
                : List.of();
        return "note: " + snippet.source().strip().lines().findFirst().orElse("")
                + " cannot be used until " + String.join(", ", missing) + " is declared";
    }

    private static boolean isExpression(Snippet snippet) {
        return switch (snippet.subKind()) {
            case TEMP_VAR_EXPRESSION_SUBKIND, VAR_VALUE_SUBKIND, OTHER_EXPRESSION_SUBKIND -> true;
            default -> false;
        };
    }

    /**
     * Returns the value of a notebook variable, the object itself.
     *
     * @param name the variable's name
     * @return its value; empty when no valid variable has that name (a null value is empty too)
     */
    public Optional<Object> variable(String name) {
        Optional<VarSnippet> snippet = shell.variables()
                .filter(v -> v.name().equals(name) && shell.status(v).isActive())
                .reduce((first, later) -> later);
        if (snippet.isEmpty() || shell.status(snippet.get()) != Snippet.Status.VALID) {
            return Optional.empty();
        }
        return Optional.ofNullable(control.take(shell.varValue(snippet.get())));
    }

    /** The names of the notebook's variables, for "did you mean" hints. */
    public List<String> variableNames() {
        return shell.variables().filter(v -> shell.status(v) == Snippet.Status.VALID)
                .map(VarSnippet::name).distinct().toList();
    }

    /** True while cell code runs (a cell may be between snippets when this is false). */
    boolean isCellRunning() {
        return control.isRunning();
    }

    /** Stops the running cell (if any) and makes the rest of the cell's snippets not run. */
    public void interrupt() {
        control.stop();
    }

    @Override
    public void close() {
        shell.close();
    }
}

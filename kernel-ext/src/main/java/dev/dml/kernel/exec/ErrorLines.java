package dev.dml.kernel.exec;

import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import dev.dml.DmlException;
import dev.dml.magics.DmlDebugException;
import jdk.jshell.Diag;
import org.dflib.jjava.jupyter.kernel.magic.UndefinedMagicException;

/** Turns compile diagnostics and thrown exceptions into the short lines a cell shows. */
public final class ErrorLines {

    /** Frames shown per exception in a chain; users need the top, not the kernel's plumbing. */
    private static final int MAX_FRAMES = 12;
    private static final String REPL_CLASS_PREFIX = "REPL.";
    private static final String KERNEL_PACKAGE = "dev.dml.kernel.";

    private ErrorLines() {
    }

    /** Jupyter's {@code ename}: the user's exception type, dml's error type, or the cell's fate. */
    public static String name(Throwable e) {
        Throwable shown = shown(e);
        return shown.getClass().getSimpleName();
    }

    /** Jupyter's {@code evalue}: the message of the exception named by {@link #name}. */
    public static String value(Throwable e) {
        String message = shown(e).getMessage();
        return message == null ? "" : message;
    }

    private static Throwable shown(Throwable e) {
        if (e instanceof CellException.JavaError error) {
            return error.getCause();
        }
        if (e instanceof CellException) {
            return e;
        }
        Throwable dml = findDmlError(e);
        return dml != null ? dml : e;
    }

    /** One entry per diagnostic: the message, the source line, and carets under the bad code. */
    static List<String> compileError(String source, List<Diag> diags) {
        List<String> lines = new ArrayList<>();
        for (Diag diag : diags) {
            if (!diag.isError()) {
                continue;
            }
            String[] message = diag.getMessage(Locale.ROOT).split("\\R");
            lines.add("error: " + message[0]);
            for (int i = 1; i < message.length; i++) {
                lines.add(message[i]);
            }
            markSource(source, diag, lines);
        }
        return lines;
    }

    private static void markSource(String source, Diag diag, List<String> lines) {
        long start = diag.getStartPosition();
        long end = Math.max(diag.getEndPosition(), start + 1);
        if (start < 0 || start > source.length()) {
            return;
        }
        int lineStart = source.lastIndexOf('\n', (int) start - 1) + 1;
        int lineEnd = source.indexOf('\n', (int) start);
        if (lineEnd < 0) {
            lineEnd = source.length();
        }
        String line = source.substring(lineStart, lineEnd);
        int from = (int) start - lineStart;
        int to = (int) Math.min(end, lineEnd) - lineStart;
        lines.add("    " + line);
        lines.add("    " + " ".repeat(from) + "^".repeat(Math.max(1, to - from)));
    }

    /**
     * Lines for an exception thrown by cell code. A dml error shows only its message (what went
     * wrong and how to fix it); anything else shows a short Java stack trace without the
     * kernel's own frames.
     */
    public static List<String> thrown(Throwable thrown, Collection<String> lineMagics) {
        Throwable dml = findDmlError(thrown);
        if (dml instanceof DmlDebugException && dml.getCause() != null) {
            List<String> lines = new ArrayList<>(List.of(("dml: " + dml.getMessage())
                    .split("\\R")));
            lines.addAll(trace(dml.getCause()));
            return lines;
        }
        if (dml != null) {
            return List.of(("dml: " + dml.getMessage()).split("\\R"));
        }
        if (thrown instanceof UndefinedMagicException undefined) {
            return List.of(undefinedMagic(undefined, lineMagics));
        }
        return trace(thrown);
    }

    /** A short Java stack trace, cause by cause, without the kernel's own frames. */
    private static List<String> trace(Throwable thrown) {
        List<String> lines = new ArrayList<>();
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        String prefix = "";
        for (Throwable t = thrown; t != null && seen.put(t, true) == null; t = t.getCause()) {
            lines.add(prefix + t);
            appendFrames(t.getStackTrace(), lines);
            prefix = "Caused by: ";
        }
        return lines;
    }

    private static void appendFrames(StackTraceElement[] frames, List<String> lines) {
        int shown = 0;
        for (StackTraceElement frame : frames) {
            if (isBelowCell(frame)) {
                break;
            }
            if (shown == MAX_FRAMES) {
                lines.add("\t...");
                break;
            }
            lines.add("\tat " + describe(frame));
            shown++;
        }
    }

    /** The reflective call into the cell and everything under it belongs to the kernel. */
    private static boolean isBelowCell(StackTraceElement frame) {
        String cls = frame.getClassName();
        return cls.startsWith("jdk.internal.reflect.")
                || cls.startsWith("java.lang.reflect.")
                || cls.startsWith(KERNEL_PACKAGE)
                || cls.startsWith("jdk.jshell.");
    }

    /** Frames in cell code read like jshell's: {@code f (#12:3)} is snippet 12, line 3. */
    private static String describe(StackTraceElement frame) {
        String file = frame.getFileName();
        boolean inCell = frame.getClassName().startsWith(REPL_CLASS_PREFIX)
                || (file != null && file.startsWith("#"));
        if (!inCell) {
            return frame.toString();
        }
        String method = frame.getMethodName();
        String name = method.isEmpty() || method.equals("do_it$") ? "cell" : method;
        return name + " (" + file + ":" + frame.getLineNumber() + ")";
    }

    private static Throwable findDmlError(Throwable thrown) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = thrown; t != null && seen.put(t, true) == null; t = t.getCause()) {
            if (t instanceof DmlException) {
                return t;
            }
        }
        return null;
    }

    private static String undefinedMagic(UndefinedMagicException e, Collection<String> lineMagics) {
        String kind = e.isLineMagic() ? "%" : "%%";
        Set<String> known = new TreeSet<>(lineMagics);
        return "Unknown magic " + kind + e.getMagicName() + ". Known magics: %"
                + String.join(", %", known) + ". Run %dml help for dml's commands.";
    }
}

package dev.dml.kernel.exec;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.SourceCodeAnalysis.Completeness;
import jdk.jshell.SourceCodeAnalysis.CompletionInfo;
import jdk.jshell.SourceCodeAnalysis.Documentation;
import jdk.jshell.SourceCodeAnalysis.Suggestion;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;

/** Completion, inspection and is-complete answers for a cell, from JShell's source analysis. */
public final class CodeAssist {

    private static final String INDENT = "    ";

    private final SourceCodeAnalysis analysis;

    public CodeAssist(SourceCodeAnalysis analysis) {
        this.analysis = analysis;
    }

    /** The span of one snippet inside the whole cell. */
    private record Span(int start, String text) {
    }

    /** JShell analyses one snippet at a time: find the one the cursor is in. */
    private Span snippetAt(String code, int cursor) {
        int start = 0;
        String remaining = code;
        while (!remaining.isEmpty()) {
            CompletionInfo info = analysis.analyzeCompletion(remaining);
            if (!info.completeness().isComplete()) {
                break;
            }
            int consumed = remaining.length() - info.remaining().length();
            if (consumed <= 0 || cursor <= start + consumed) {
                return new Span(start, remaining.substring(0, Math.max(consumed, 0)));
            }
            start += consumed;
            remaining = info.remaining();
        }
        return new Span(start, remaining);
    }

    /** Tab completion: names that can stand at the cursor, best matches first. */
    public ReplacementOptions complete(String code, int cursor) {
        Span span = snippetAt(code, cursor);
        int local = cursor - span.start();
        int[] anchor = new int[1];
        List<Suggestion> suggestions = analysis.completionSuggestions(span.text(), local, anchor);
        Set<String> typed = new LinkedHashSet<>();
        Set<String> other = new LinkedHashSet<>();
        for (Suggestion s : suggestions) {
            (s.matchesType() ? typed : other).add(s.continuation());
        }
        List<String> options = new ArrayList<>(typed);
        other.stream().filter(o -> !typed.contains(o)).forEach(options::add);
        return new ReplacementOptions(options, span.start() + anchor[0], cursor);
    }

    /**
     * Shift-Tab inspection. JShell documents a method only with the cursor inside its call, so
     * for a bare name such as {@code Math.abs} the lookup is retried as {@code Math.abs(}.
     */
    public String inspect(String code, int cursor) {
        Span span = snippetAt(code, cursor);
        String text = span.text();
        int local = Math.min(cursor - span.start(), text.length());
        List<Documentation> docs = analysis.documentation(text, local, true);
        if (docs.isEmpty()) {
            int end = identifierEnd(text, local);
            docs = analysis.documentation(text.substring(0, end) + "(", end + 1, true);
        }
        if (!docs.isEmpty()) {
            StringBuilder out = new StringBuilder();
            for (Documentation doc : docs) {
                out.append(doc.signature()).append('\n');
                if (doc.javadoc() != null && !doc.javadoc().isBlank()) {
                    out.append(doc.javadoc().strip()).append("\n\n");
                }
            }
            return out.toString().strip();
        }
        int end = identifierEnd(text, local);
        int start = identifierStart(text, end);
        if (start == end) {
            return null;
        }
        String expression = text.substring(start, end);
        String type = analysis.analyzeType(expression, expression.length());
        return type == null || type.isBlank() ? null : expression + " : " + type;
    }

    /**
     * Whether a console should run the code now: {@link BaseKernel#IS_COMPLETE_YES}, an indent
     * to continue with, or {@link BaseKernel#IS_COMPLETE_BAD}.
     */
    public String isComplete(String code) {
        if (code.stripLeading().startsWith("%%")) {
            return BaseKernel.IS_COMPLETE_YES; // a cell magic owns the whole body
        }
        String remaining = code;
        while (!remaining.isBlank()) {
            CompletionInfo info = analysis.analyzeCompletion(remaining);
            Completeness completeness = info.completeness();
            if (completeness == Completeness.DEFINITELY_INCOMPLETE
                    || completeness == Completeness.CONSIDERED_INCOMPLETE) {
                return remaining.stripTrailing().endsWith("{") ? INDENT : "";
            }
            if (completeness == Completeness.UNKNOWN) {
                return BaseKernel.IS_COMPLETE_BAD;
            }
            if (completeness == Completeness.EMPTY) {
                break;
            }
            remaining = info.remaining();
        }
        return BaseKernel.IS_COMPLETE_YES;
    }

    private static int identifierEnd(String text, int from) {
        int end = from;
        while (end < text.length() && Character.isJavaIdentifierPart(text.charAt(end))) {
            end++;
        }
        return end;
    }

    private static int identifierStart(String text, int end) {
        int start = end;
        while (start > 0 && (Character.isJavaIdentifierPart(text.charAt(start - 1))
                || text.charAt(start - 1) == '.')) {
            start--;
        }
        return start;
    }
}

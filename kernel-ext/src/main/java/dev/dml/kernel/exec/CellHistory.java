package dev.dml.kernel.exec;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.dflib.jjava.jupyter.kernel.history.HistoryEntry;
import org.dflib.jjava.jupyter.kernel.history.HistoryManager;
import org.dflib.jjava.jupyter.messages.request.HistoryRequest;

/**
 * This kernel session's executed cells, for Jupyter history requests (tail, range and glob
 * search, as IPython answers them). Kept in memory: a restart starts a new session.
 */
public final class CellHistory implements HistoryManager {

    /** The one session a kernel process has; clients send it back in range requests. */
    static final int SESSION = 1;

    private record Cell(int number, String input, String output) {
    }

    private final List<Cell> cells = new ArrayList<>();

    /** Records an executed cell; {@code output} is the text of its result, or null. */
    public synchronized void add(int executionCount, String input, String output) {
        cells.add(new Cell(executionCount, input, output));
    }

    /** Answers a history request of any access type; flags follow the request. */
    public List<HistoryEntry> answer(HistoryRequest request) {
        Set<ResultFlag> flags = EnumSet.noneOf(ResultFlag.class);
        if (request.includeOutput()) {
            flags.add(ResultFlag.INCLUDE_OUTPUT);
        }
        return switch (request.getAccessType()) {
            case TAIL -> lookupTail(((HistoryRequest.Tail) request).getMaxReturnLength(), flags);
            case RANGE -> {
                HistoryRequest.Range range = (HistoryRequest.Range) request;
                yield lookupRange(range.getSessionIndex(), range.getStart(),
                        range.getStop(), flags);
            }
            case SEARCH -> {
                HistoryRequest.Search search = (HistoryRequest.Search) request;
                if (search.filterUnique()) {
                    flags.add(ResultFlag.UNIQUE);
                }
                yield search(search.getPattern(), search.getMaxReturnLength(), flags);
            }
        };
    }

    @Override
    public synchronized List<HistoryEntry> lookupTail(int length, Set<ResultFlag> flags) {
        int from = Math.max(0, cells.size() - Math.max(length, 0));
        return entries(cells.subList(from, cells.size()), flags);
    }

    @Override
    public synchronized List<HistoryEntry> lookupRange(int session, int start, int stop,
                                                       Set<ResultFlag> flags) {
        if (session > 0 && session != SESSION) {
            return List.of();
        }
        List<Cell> range = new ArrayList<>();
        for (Cell cell : cells) {
            if (cell.number() >= start && (stop <= 0 || cell.number() < stop)) {
                range.add(cell);
            }
        }
        return entries(range, flags);
    }

    @Override
    public synchronized List<HistoryEntry> search(String glob, int length, Set<ResultFlag> flags) {
        Pattern pattern = globToPattern(glob == null || glob.isEmpty() ? "*" : glob);
        List<Cell> matches = new ArrayList<>();
        for (Cell cell : cells) {
            if (pattern.matcher(cell.input()).matches()) {
                matches.add(cell);
            }
        }
        if (flags.contains(ResultFlag.UNIQUE)) {
            Map<String, Cell> newestByInput = new LinkedHashMap<>();
            for (Cell cell : matches) {
                newestByInput.remove(cell.input());
                newestByInput.put(cell.input(), cell);
            }
            matches = new ArrayList<>(newestByInput.values());
        }
        if (length > 0 && matches.size() > length) {
            matches = matches.subList(matches.size() - length, matches.size());
        }
        return entries(matches, flags);
    }

    private static List<HistoryEntry> entries(List<Cell> cells, Set<ResultFlag> flags) {
        boolean withOutput = flags.contains(ResultFlag.INCLUDE_OUTPUT);
        List<HistoryEntry> entries = new ArrayList<>(cells.size());
        for (Cell cell : cells) {
            entries.add(new HistoryEntry(SESSION, cell.number(), cell.input(),
                    withOutput ? (cell.output() == null ? "" : cell.output()) : null));
        }
        return entries;
    }

    /** IPython's history patterns are shell globs: {@code *} and {@code ?} only. */
    static Pattern globToPattern(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toCharArray()) {
            switch (c) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}

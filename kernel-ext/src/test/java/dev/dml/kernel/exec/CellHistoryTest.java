package dev.dml.kernel.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.dflib.jjava.jupyter.kernel.history.HistoryEntry;
import org.dflib.jjava.jupyter.kernel.history.HistoryManager.ResultFlag;
import org.dflib.jjava.jupyter.messages.request.HistoryRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CellHistoryTest {

    private static final Set<ResultFlag> NONE = EnumSet.noneOf(ResultFlag.class);
    private final CellHistory history = new CellHistory();

    @BeforeEach
    void fill() {
        history.add(1, "int x = 1;", null);
        history.add(2, "6 * 7", "42");
        history.add(3, "x + 1", "2");
        history.add(4, "6 * 7", "42");
    }

    private static List<Integer> numbers(List<HistoryEntry> entries) {
        return entries.stream().map(HistoryEntry::getCellNumber).toList();
    }

    @Test
    void tailReturnsTheLastCellsInOrder() {
        assertEquals(List.of(3, 4), numbers(history.lookupTail(2, NONE)));
        assertEquals(List.of(1, 2, 3, 4), numbers(history.lookupTail(10, NONE)));
    }

    @Test
    void rangeIsHalfOpen() {
        assertEquals(List.of(2, 3), numbers(history.lookupRange(CellHistory.SESSION, 2, 4, NONE)));
        assertEquals(List.of(), numbers(history.lookupRange(7, 1, 4, NONE)));
    }

    @Test
    void searchMatchesGlobsAndCanKeepOnlyTheNewestOfEachInput() {
        assertEquals(List.of(2, 4), numbers(history.search("6 *", 0, NONE)));
        assertEquals(List.of(2, 4), numbers(history.search("6 * 7", 0, NONE)));
        assertEquals(List.of(4), numbers(history.search("6*", 0, EnumSet.of(ResultFlag.UNIQUE))));
        assertEquals(List.of(3, 4), numbers(history.search("*", 2, NONE)));
    }

    @Test
    void outputIsIncludedOnlyWhenAsked() {
        assertNull(history.lookupTail(1, NONE).get(0).getOutput());
        HistoryEntry withOutput = history.lookupTail(1,
                EnumSet.of(ResultFlag.INCLUDE_OUTPUT)).get(0);
        assertEquals("42", withOutput.getOutput());
    }

    @Test
    void answersEachRequestType() {
        assertEquals(1, history.answer(new HistoryRequest.Tail(false, true, 1)).size());
        assertEquals(2, history.answer(new HistoryRequest.Range(false, true, 0, 1, 3)).size());
        assertEquals(1, history.answer(new HistoryRequest.Search(false, true, 5, "x*",
                true)).size());
    }
}

package dev.dml.kernel.jupyter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.history.HistoryEntry;
import org.dflib.jjava.jupyter.messages.Header;
import org.dflib.jjava.jupyter.messages.reply.HistoryReply;
import org.dflib.jjava.jupyter.messages.reply.KernelInfoReply;

/** Reply contents that JJava 1.0-a6 serializes off-protocol, written the way clients expect. */
public final class Replies {

    private Replies() {
    }

    /** kernel_info_reply with the {@code "status": "ok"} that 1.0-a6 leaves out. */
    public static final class KernelInfo extends KernelInfoReply {
        @SuppressWarnings("unused") // serialized by gson
        private final String status = "ok";

        public KernelInfo(String name, String version, LanguageInfo info, String banner) {
            super(Header.PROTOCOL_VERISON, name, version, info, banner, Collections.emptyList());
        }
    }

    /**
     * history_reply with a status and the protocol's tuples ({@code [session, line, input]}).
     * JJava's tuple adapter is never registered for sending, so the tuples are handed over as
     * plain lists, which gson writes as JSON arrays.
     */
    public static final class History extends HistoryReply {
        @SuppressWarnings("unused") // serialized by gson
        private final String status = "ok";

        @SuppressWarnings({"unchecked", "rawtypes"})
        public History(List<HistoryEntry> entries) {
            super((List) tuples(entries));
        }

        private static List<List<Object>> tuples(List<HistoryEntry> entries) {
            List<List<Object>> tuples = new ArrayList<>(entries.size());
            for (HistoryEntry e : entries) {
                Object io = e.hasOutput() ? List.of(e.getInput(), e.getOutput()) : e.getInput();
                tuples.add(List.of(e.getSession(), e.getCellNumber(), io));
            }
            return tuples;
        }
    }
}

package dev.dml.kernel.jupyter;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.dflib.jjava.jupyter.messages.publish.PublishStream;
import org.dflib.jjava.jupyter.messages.publish.PublishStream.StreamType;

/**
 * A cell's stdout and stderr, sent to the notebook in batches as IPython's kernel does: what a
 * cell prints waits at most {@link #FLUSH_MS} (or until {@link #MAX_PENDING} bytes are waiting),
 * and everything waiting goes out before any other message of the cell (a display, an error,
 * the reply), so a printed line is one stream message and the order of outputs is kept. A write
 * to the other stream sends what the first one had waiting, so stdout and stderr stay in order.
 */
final class CellStreams {

    /** How long printed text waits for more before it is sent; IPython waits 200 ms. */
    static final long FLUSH_MS = 100;
    /** Text waiting beyond this is sent at once, so one message stays small. */
    static final int MAX_PENDING = 64 * 1024;

    private final Object lock = new Object();
    private final ScheduledExecutorService timer;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private CellReplyEnvironment cell;
    private StreamType pendingType;
    private ScheduledFuture<?> scheduled;

    /** The cell's {@code System.out}. */
    final PrintStream out = new PrintStream(new Sink(StreamType.OUT), false,
            StandardCharsets.UTF_8);
    /** The cell's {@code System.err}. */
    final PrintStream err = new PrintStream(new Sink(StreamType.ERR), false,
            StandardCharsets.UTF_8);

    CellStreams(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** Sends output to this cell from now on; what an earlier cell left is sent to that one. */
    void attach(CellReplyEnvironment next) {
        synchronized (lock) {
            sendLocked(true);
            cell = next;
        }
    }

    /** Sends what is waiting and stops sending to this cell; later output is dropped. */
    void detach(CellReplyEnvironment done) {
        synchronized (lock) {
            if (cell == done) {
                sendLocked(true);
                cell = null;
            }
        }
    }

    /** Sends what is waiting now. */
    void flush() {
        synchronized (lock) {
            sendLocked(true);
        }
    }

    /** Sends what is waiting, then runs {@code publish}, with no other output in between. */
    void flushThen(Runnable publish) {
        synchronized (lock) {
            sendLocked(true);
            publish.run();
        }
    }

    /** Adds text printed through JJava's own streams ({@code kernel.getIO().out}). */
    void write(StreamType type, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        write(type, bytes, 0, bytes.length);
    }

    private void write(StreamType type, byte[] b, int off, int len) {
        synchronized (lock) {
            if (cell == null) {
                return;  // no cell is running: as JJava, output between cells goes nowhere
            }
            if (pendingType != type) {
                sendLocked(true);
                pendingType = type;
            }
            pending.write(b, off, len);
            if (pending.size() >= MAX_PENDING) {
                sendLocked(false);
            } else if (scheduled == null) {
                scheduled = timer.schedule(this::onTimer, FLUSH_MS, TimeUnit.MILLISECONDS);
            }
        }
    }

    private void onTimer() {
        synchronized (lock) {
            scheduled = null;
            sendLocked(false);
        }
    }

    /** Sends what is waiting; unless {@code all}, a character cut by the batch waits. */
    private void sendLocked(boolean all) {
        int n = pending.size();
        if (n == 0 || cell == null) {
            pending.reset();
            return;
        }
        byte[] bytes = pending.toByteArray();
        int cut = all ? n : completeUtf8(bytes, n);
        pending.reset();
        pending.write(bytes, cut, n - cut);
        if (cut > 0) {
            cell.publishNow(new PublishStream(pendingType,
                    new String(bytes, 0, cut, StandardCharsets.UTF_8)));
        }
    }

    /** The length of the longest prefix that does not end inside a UTF-8 sequence. */
    static int completeUtf8(byte[] b, int n) {
        for (int back = 1; back <= Math.min(4, n); back++) {
            int c = b[n - back] & 0xff;
            if ((c & 0xC0) == 0x80) {
                continue;  // a continuation byte: look further back for the lead
            }
            int need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
            return need > back ? n - back : n;
        }
        return n;
    }

    private final class Sink extends OutputStream {
        private final StreamType type;

        Sink(StreamType type) {
            this.type = type;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            CellStreams.this.write(type, b, off, len);
        }
    }
}

package dev.dml.magics.live;
import java.time.Duration;
/** TEMP stand-in until the real renderer merges. */
public final class LiveCell implements AutoCloseable {
    private final LiveDashboard d; private final DisplaySink sink; private final String id = "dml-" + java.util.UUID.randomUUID(); private int updates; private final Thread t; private volatile boolean closed;
    public LiveCell(LiveDashboard dashboard, DisplaySink sink, Duration minInterval) {
        d = dashboard; this.sink = sink; Frame f = d.frame(); sink.display(id, f.svg(), f.text());
        t = new Thread(() -> { while (!closed) { try { Thread.sleep(minInterval.toMillis()); } catch (InterruptedException e) { return; } publish(); } }); t.setDaemon(true); t.start(); }
    private synchronized void publish() { if (d.isDirty()) { Frame f = d.frame(); sink.update(id, f.svg(), f.text()); updates++; } }
    public String displayId() { return id; }
    public synchronized int updates() { return updates; }
    public long[] latenciesMillis() { return new long[0]; }
    public void close() { if (closed) return; closed = true; t.interrupt(); publish(); }
}

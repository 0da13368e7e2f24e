package dev.dml.kernel.jupyter;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.JupyterIO;

/**
 * JJava's cell streams, opened up so that the kernel's own execute handler can attach them to
 * the request being served (JJava keeps those hooks package-private to its base kernel), with
 * the cell's stdout and stderr batched by {@link CellStreams}.
 */
public final class KernelIO extends JupyterIO implements AutoCloseable {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(
            r -> {
                Thread t = new Thread(r, "dml-cell-output");
                t.setDaemon(true);
                return t;
            });
    private final CellStreams streams = new CellStreams(timer);

    public KernelIO(Charset encoding) {
        super(encoding);
    }

    /**
     * Sends stdout, stderr and display output to this request until {@link #detach}, and points
     * {@code System.out}, {@code err} and {@code in} at it.
     *
     * @return the cell's view of the request: publish through it to keep outputs in order
     */
    public CellReplyEnvironment attach(ShellReplyEnvironment env, boolean stdinAllowed) {
        CellReplyEnvironment cell = new CellReplyEnvironment(env, streams);
        streams.attach(cell);
        setEnv(cell);
        setJupyterInEnabled(stdinAllowed);
        PrintStream out = System.out;
        PrintStream err = System.err;
        InputStream stdin = System.in;
        System.setOut(streams.out);
        System.setErr(streams.err);
        System.setIn(in);
        env.defer(() -> {
            System.setOut(out);
            System.setErr(err);
            System.setIn(stdin);
        });
        return cell;
    }

    /** Sends what the cell printed and has not been sent yet. */
    public void flush() {
        streams.flush();
    }

    /** Sends what is left and stops sending output to this request. */
    public void detach(CellReplyEnvironment cell) {
        streams.detach(cell);
        retractEnv(cell);
    }

    @Override
    public void close() {
        streams.flush();
        timer.shutdownNow();
    }
}

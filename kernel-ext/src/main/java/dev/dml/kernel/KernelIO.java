package dev.dml.kernel;

import java.nio.charset.Charset;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.JupyterIO;

/**
 * JJava's cell streams, opened up so that the kernel's own execute handler can attach them to
 * the request being served (JJava keeps those hooks package-private to its base kernel).
 */
final class KernelIO extends JupyterIO {

    KernelIO(Charset encoding) {
        super(encoding);
    }

    /** Sends stdout, stderr and display output to this request until {@link #detach}. */
    void attach(ShellReplyEnvironment env, boolean stdinAllowed) {
        setEnv(env);
        setJupyterInEnabled(stdinAllowed);
    }

    /** Stops sending output to this request. */
    void detach(ShellReplyEnvironment env) {
        retractEnv(env);
    }
}

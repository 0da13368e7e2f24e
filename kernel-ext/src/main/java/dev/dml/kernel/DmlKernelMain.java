package dev.dml.kernel;

import dev.dml.kernel.jupyter.SignedShellChannel;
import dev.dml.DmlEnv;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.slf4j.LoggerFactory;

/** Starts the kernel for Jupyter: {@code java -cp 'lib/*' dev.dml.kernel.DmlKernelMain CONN}. */
public final class DmlKernelMain {

    private DmlKernelMain() {
    }

    /**
     * Serves Jupyter on the connection file's ports until the client shuts the kernel down.
     *
     * @param args one argument: the connection file Jupyter wrote
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: DmlKernelMain CONNECTION_FILE"
                    + " (Jupyter passes it; install the kernel with bin/install)");
            System.exit(2);
        }
        configureLogging(DmlEnv.system());
        exitWithLauncher(System.getenv("JPY_PARENT_PID"));
        String json = Files.readString(Path.of(args[0]));
        JupyterConnection connection = new JupyterConnection(KernelConnectionProperties
                .parse(json));
        SignedShellChannel.installInto(connection); // a badly signed message must not deafen us
        DmlKernel kernel = DmlKernel.builder().build();
        kernel.onStartup();
        kernel.becomeHandlerForConnection(connection);
        connection.connect();
        connection.waitUntilClose();
        System.exit(0); // threads a cell left running must not keep a shut-down kernel alive
    }

    /**
     * Ends the kernel when the process that launched it (a Jupyter server, nbclient, a test)
     * dies without shutting it down, as IPython's parent poller does: an orphaned kernel has no
     * client left and would hold its memory, threads and any cluster it owns forever.
     *
     * @param launcherPid {@code JPY_PARENT_PID}, which jupyter_client sets; else the parent
     */
    static void exitWithLauncher(String launcherPid) {
        Optional<ProcessHandle> launcher = launcherPid != null && launcherPid.matches("\\d+")
                ? ProcessHandle.of(Long.parseLong(launcherPid))
                : ProcessHandle.current().parent();
        launcher.ifPresent(p -> p.onExit().thenRun(() -> {
            LoggerFactory.getLogger(DmlKernelMain.class).warn(
                    "launcher pid {} exited without shutting the kernel down; exiting", p.pid());
            System.exit(0);
        }));
    }

    /** Logs go to a file, never into a cell; must run before the first logger is created. */
    static void configureLogging(DmlEnv env) throws IOException {
        Path logDir = env.logDir(Path.of(System.getProperty("user.home")));
        Files.createDirectories(logDir);
        System.setProperty("org.slf4j.simpleLogger.logFile",
                logDir.resolve("kernel.log").toString());
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", env.logLevel());
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "yyyy-MM-dd'T'HH:mm:ss.SSS");
    }
}

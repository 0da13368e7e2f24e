package dev.dml.kernel;

import dev.dml.DmlException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import jdk.jshell.execution.DirectExecutionControl;
import jdk.jshell.spi.ExecutionControl;
import jdk.jshell.spi.ExecutionControlProvider;
import jdk.jshell.spi.ExecutionEnv;

/**
 * Runs JShell snippets inside the kernel's own JVM, each on a fresh thread that can be stopped.
 *
 * <p>Runs in-process because JJava's magics compile to calls on {@code BaseNotebookStatics}, which
 * must see the live kernel. JShell only carries a value's string across its SPI, so the real
 * result objects and thrown exceptions are parked here under a key that travels as that string.
 * Unlike JShell's {@code LocalExecutionControl}, threads a cell starts are not joined: a cell may
 * leave background work running.
 */
final class CellExecutionControl extends DirectExecutionControl {

    private static final String KEY_PREFIX = "dml-cell-value:";

    /** How long an interrupted cell has to end by itself before it is stopped by force. */
    static final long STOP_GRACE_MS = 1_000;

    private final Map<String, Object> parked = new ConcurrentHashMap<>();
    /** The bytecode of every class the cells defined, by binary name, the latest version. */
    private final Map<String, byte[]> classes = new ConcurrentHashMap<>();
    private final AtomicLong keys = new AtomicLong();
    private boolean stopRequested;
    private volatile Thread running;

    @Override
    public void load(ClassBytecodes[] cbcs) throws ClassInstallException, NotImplementedException,
            EngineTerminationException {
        keep(cbcs);
        super.load(cbcs);
    }

    @Override
    public void redefine(ClassBytecodes[] cbcs) throws ClassInstallException,
            NotImplementedException, EngineTerminationException {
        keep(cbcs);
        super.redefine(cbcs);
    }

    /** Keeps the cells' bytecode, so that a job can send a cell's class to its workers. */
    private void keep(ClassBytecodes[] cbcs) {
        for (ClassBytecodes c : cbcs) {
            classes.put(c.name(), c.bytecodes().clone());
        }
    }

    /** @return the bytecode of the classes the cells defined, by binary name; a copy */
    Map<String, byte[]> cellClasses() {
        return Map.copyOf(classes);
    }

    @Override
    protected String invoke(Method doitMethod) throws Exception {
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread cell = new Thread(() -> {
            try {
                result[0] = doitMethod.invoke(null);
            } catch (InvocationTargetException e) {
                failure[0] = e.getCause();
            } catch (Throwable t) {
                failure[0] = t;
            }
        }, "dml-cell-" + keys.incrementAndGet());
        // ServiceLoader and friends in cell code must see jars added with %jars.
        cell.setContextClassLoader(doitMethod.getDeclaringClass().getClassLoader());
        synchronized (this) {
            if (stopRequested) {
                throw new ExecutionControl.StoppedException();
            }
            running = cell;
            cell.start();
        }
        try {
            cell.join();
        } finally {
            synchronized (this) {
                running = null;
            }
        }
        if (isStopRequested() && !isDmlFailure(failure[0])) {
            throw new ExecutionControl.StoppedException();
        }
        if (failure[0] != null) {
            String key = park(failure[0]);
            throw new ExecutionControl.UserException(
                    key, failure[0].getClass().getName(), failure[0].getStackTrace());
        }
        return park(result[0]);
    }

    /**
     * A dml error says what the interrupt did (e.g. which job it stopped): show it. JJava wraps
     * what a magic throws, so look along the causes.
     */
    private static boolean isDmlFailure(Throwable thrown) {
        for (Throwable t = thrown; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof DmlException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Stops the running cell and keeps the rest of this cell's snippets from starting. The cell
     * is interrupted first: code that waits (a {@code %dml} job, a sleep) ends on that and may
     * clean up, such as stopping the job it started. A cell still running after {@value
     * #STOP_GRACE_MS} ms, a busy loop, is then stopped with {@code Thread.stop} on Java 17;
     * where the JDK no longer allows that, the interrupt is all it gets.
     */
    @Override
    public synchronized void stop() {
        stopRequested = true;
        Thread cell = running;
        if (cell == null) {
            return;
        }
        cell.interrupt();
        Thread force = new Thread(() -> forceStop(cell), "dml-stop-" + cell.getName());
        force.setDaemon(true);
        force.start();
    }

    @SuppressWarnings({"deprecation", "removal"})
    private void forceStop(Thread cell) {
        try {
            cell.join(STOP_GRACE_MS);
            if (cell.isAlive() && running == cell) {
                cell.stop();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (UnsupportedOperationException newerJdk) {
            // Java 20+ refuses Thread.stop; the interrupt above is all we can do.
        }
    }

    /** Forgets an earlier stop: called when a new cell starts. */
    synchronized void reset() {
        stopRequested = false;
    }

    /** True once {@link #stop()} was called for the current cell. */
    synchronized boolean isStopRequested() {
        return stopRequested;
    }

    /** True while a cell's code is running. */
    boolean isRunning() {
        return running != null;
    }

    /**
     * Reads a variable's value as the object itself (parked; JShell's own call returns only its
     * string): how {@code %dml train fraud} finds the table {@code fraud}.
     */
    @Override
    public String varValue(String className, String varName)
            throws ExecutionControl.InternalException {
        try {
            java.lang.reflect.Field field = findClass(className).getField(varName);
            field.setAccessible(true); // the snippet's wrapper class is not public
            return park(field.get(null));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new ExecutionControl.InternalException("cannot read " + varName + ": " + e);
        }
    }

    /** Takes back the object parked under the given JShell value string, if there is one. */
    Object take(String valueString) {
        if (valueString == null || !valueString.startsWith(KEY_PREFIX)) {
            return null;
        }
        return parked.remove(valueString);
    }

    /** True when the value string names a parked object (which may itself be null). */
    boolean isKey(String valueString) {
        return valueString != null && valueString.startsWith(KEY_PREFIX);
    }

    /** Drops objects parked for snippets whose values nobody asked for (declarations). */
    void clearParked() {
        parked.clear();
    }

    private String park(Object value) {
        String key = KEY_PREFIX + keys.incrementAndGet();
        if (value != null) {
            parked.put(key, value);
        }
        return key;
    }

    /** Hands JShell the one control instance the kernel also keeps, so it can stop cells. */
    static final class Provider implements ExecutionControlProvider {
        private final CellExecutionControl control;

        Provider(CellExecutionControl control) {
            this.control = control;
        }

        @Override
        public String name() {
            return "dml-in-process";
        }

        @Override
        public ExecutionControl generate(ExecutionEnv env, Map<String, String> parameters) {
            return control;
        }
    }
}

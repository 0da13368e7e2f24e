package dev.dml.kernel.exec;

import dev.dml.CellThread;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    private static final Logger LOG = LoggerFactory.getLogger(CellExecutionControl.class);
    private static final String KEY_PREFIX = "dml-cell-value:";

    /** How long an interrupted cell has to end by itself before it is stopped by force. */
    static final long STOP_GRACE_MS = 1_000;
    /**
     * How long cooperative code ({@link CellThread#cooperating()}) has to end after an interrupt:
     * a job stops its workers gracefully within 30 s, else kills them.
     */
    static final long ENDING_LIMIT_MS = 150_000;
    private static final long WATCH_STEP_MS = 50;

    private final Map<String, Object> parked = new ConcurrentHashMap<>();
    /** The bytecode of every class the cells defined, by binary name, the latest version. */
    private final Map<String, byte[]> classes = new ConcurrentHashMap<>();
    private final AtomicLong keys = new AtomicLong();
    private boolean stopRequested;
    private volatile Cell running;

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
        Cell cell = new Cell(() -> {
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
     * #STOP_GRACE_MS} ms, a busy loop, is then stopped with {@code Thread.stop} on Java 17 (the
     * last resort for code that ignores interrupts; where the JDK no longer allows that, the
     * interrupt is all it gets). Code that stops by itself ({@link CellThread#cooperating()},
     * dml's commands) has {@value #ENDING_LIMIT_MS} ms instead and is interrupted only once. The
     * log says which way each interrupted cell ended.
     */
    @Override
    public synchronized void stop() {
        stopRequested = true;
        Cell cell = running;
        if (cell == null || cell.watched && cell.isCooperative()) {
            return; // nothing runs, or it cleans up: a second interrupt would cut that short
        }
        cell.interrupt();
        if (cell.watched) {
            return;
        }
        cell.watched = true;
        Thread watch = new Thread(() -> watch(cell), "dml-stop-" + cell.getName());
        watch.setDaemon(true);
        watch.start();
    }

    /** Waits for an interrupted cell to end, stops it by force when it does not, and logs how. */
    private void watch(Cell cell) {
        long start = System.nanoTime();
        long ms = 0;
        long limit = STOP_GRACE_MS;
        boolean cooperated = false;
        try {
            while (cell.isAlive() && running == cell && ms < limit) {
                if (cell.isCooperative()) {
                    // cooperative code gets its clean-up time, and a grace once it returns
                    cooperated = true;
                    limit = Math.max(limit, Math.min(ENDING_LIMIT_MS, ms + STOP_GRACE_MS));
                }
                cell.join(WATCH_STEP_MS);
                ms = (System.nanoTime() - start) / 1_000_000;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (!cell.isAlive() || running != cell) {
            LOG.info("cell {} ended by itself {} ms after its interrupt{}", cell.getName(), ms,
                    cooperated ? " (cooperative code)" : "");
            return;
        }
        LOG.warn("cell {} ignored its interrupt for {} ms; stopping it by force", cell.getName(),
                ms);
        forceStop(cell);
    }

    @SuppressWarnings({"deprecation", "removal"})
    private static void forceStop(Thread cell) {
        try {
            cell.stop();
        } catch (UnsupportedOperationException newerJdk) {
            LOG.warn("this JDK refuses Thread.stop; cell {} keeps running", cell.getName());
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

    /** A cell's thread: the code on it may say that it stops by itself on an interrupt. */
    private static final class Cell extends Thread implements CellThread {
        private volatile boolean cooperative;
        /** Set (under the control's lock) once the cell was interrupted and is watched. */
        private boolean watched;

        Cell(Runnable code, String name) {
            super(code, name);
        }

        @Override
        public void setCooperative(boolean cooperative) {
            this.cooperative = cooperative;
        }

        @Override
        public boolean isCooperative() {
            return cooperative;
        }
    }

    /**
     * Hands JShell the one control instance the kernel also keeps, so it can stop cells.
     *
     * @param control the kernel's control
     */
    record Provider(CellExecutionControl control) implements ExecutionControlProvider {

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

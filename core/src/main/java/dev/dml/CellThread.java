package dev.dml;

/**
 * The thread a notebook kernel runs a cell on. The kernel interrupts it to stop the cell; code
 * that ignores the interrupt (a busy loop) it may stop by force after a short grace. dml's
 * commands stop by themselves on an interrupt and run inside {@link #cooperating()}: the kernel
 * then waits, for a bounded time, for their clean-up (stopping a job's workers takes seconds),
 * and neither interrupts it again nor stops it half-way.
 */
public interface CellThread {

    /**
     * Sets whether the code now running on this cell stops by itself on an interrupt.
     *
     * @param cooperative true inside dml's commands
     */
    void setCooperative(boolean cooperative);

    /**
     * Returns whether the code now running on this cell stops by itself on an interrupt.
     *
     * @return the value last set
     */
    boolean isCooperative();

    /**
     * Marks the calling thread, when it runs a notebook cell, as stopping by itself on an
     * interrupt until the returned scope closes; on any other thread (a test, a kernel without
     * this support) it does nothing.
     *
     * @return the scope, to close when the cooperative code ends
     */
    static Scope cooperating() {
        if (Thread.currentThread() instanceof CellThread cell) {
            boolean before = cell.isCooperative();
            cell.setCooperative(true);
            return () -> cell.setCooperative(before);
        }
        return () -> { };
    }

    /** A stretch of cooperative code; closing it ends the stretch. */
    interface Scope extends AutoCloseable {
        @Override
        void close();
    }
}

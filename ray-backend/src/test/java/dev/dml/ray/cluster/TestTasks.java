package dev.dml.ray.cluster;

import dev.dml.DmlException;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.CollectiveStats;
import dev.dml.ray.collective.ProbeWorker;
import dev.dml.ray.collective.ReduceOp;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Tasks the driver-process tests send. */
final class TestTasks {

    private TestTasks() {}

    /**
     * A task of one argument, which it keeps for {@link #run}. Its subclasses travel to a
     * driver of the same build, so they keep the serial version Java derives.
     */
    private abstract static class WithArgument<A extends Serializable>
            implements DriverTask<String> {
        private static final long serialVersionUID = 1L;
        final A argument;

        WithArgument(A argument) {
            this.argument = argument;
        }
    }

    /** Returns its text and the driver's pid. */
    static final class Echo extends WithArgument<String> {
        Echo(String text) {
            super(text);
        }

        @Override
        public String run(DriverContext context) {
            return argument + "@" + ProcessHandle.current().pid() + "@" + context.address();
        }
    }

    /** Emits its step numbers as events, one unserializable one among them, then returns. */
    static final class Countdown extends WithArgument<Integer> {
        Countdown(int steps) {
            super(steps);
        }

        @Override
        public String run(DriverContext context) {
            for (int i = 1; i <= argument; i++) {
                context.emit(i);
                if (i == 2) {
                    context.emit(new java.util.ArrayList<>(List.of(new Object())));
                }
            }
            return "done";
        }
    }

    /** Throws a DmlException (with a hint) when its argument is true, else a plain exception. */
    static final class Fail extends WithArgument<Boolean> {
        Fail(boolean dml) {
            super(dml);
        }

        @Override
        public String run(DriverContext context) {
            if (argument) {
                throw new DmlException("Nothing to train.", "Load a dataset first.");
            }
            throw new IllegalStateException("boom");
        }
    }

    /** Sleeps its argument's milliseconds, interruptibly. */
    static final class Sleep extends WithArgument<Long> {
        Sleep(long millis) {
            super(millis);
        }

        @Override
        public String run(DriverContext context) throws InterruptedException {
            Thread.sleep(argument);
            return "slept";
        }
    }

    /** Returns something that is not Serializable. */
    static final class BadResult implements DriverTask<Object> {
        private static final long serialVersionUID = 1L;

        @Override
        public Object run(DriverContext context) {
            return new Object();
        }
    }

    /** What {@link RingCheck} found. */
    static final class RingReport implements Serializable {
        private static final long serialVersionUID = 1L;
        long driverPid;
        List<Long> actorPids = new ArrayList<>();
        List<Long> actorMaxHeaps = new ArrayList<>();
        double maxError;
        float[] broadcast;
        CollectiveStats stats;
    }

    /**
     * Opens a group of {@link ProbeWorker}s (registered in the driver as {@code name}, so that a
     * later task or the driver's end closes it), all-reduces random arrays and checks the
     * result against the mean, and broadcasts. Only Java-serialized (kernel to driver), so a
     * record.
     *
     * @param name the group's name in the driver
     * @param size the group's actors
     * @param length the arrays' length
     */
    record RingCheck(String name, int size, int length) implements DriverTask<RingReport> {
        @Override
        public RingReport run(DriverContext context) {
            ActorGroup<ProbeWorker> group = context.register(name, ActorGroup
                    .builder(ProbeWorker::new).setSize(size).optCpusPerActor(0.5)
                    .addJvmOption("-Xmx512m").optTimeout(Duration.ofSeconds(60)).open());
            RingReport report = new RingReport();
            report.driverPid = ProcessHandle.current().pid();
            report.actorPids.addAll(group.callAll(ProbeWorker::pid));
            report.actorMaxHeaps.addAll(group.callAll(ProbeWorker::maxHeapBytes));
            List<float[]> in = ProbeWorker.randomInputs(size, length, length);
            List<float[]> out = group.allReduce(in, ReduceOp.AVERAGE);
            for (int i = 0; i < length; i++) {
                double mean = 0;
                for (float[] a : in) {
                    mean += a[i];
                }
                mean /= size;
                for (float[] o : out) {
                    report.maxError = Math.max(report.maxError, Math.abs(o[i] - mean));
                }
            }
            report.broadcast = group.broadcast(new float[] {3, 1, 4}).get(size - 1);
            report.stats = group.stats();
            return report;
        }
    }
}

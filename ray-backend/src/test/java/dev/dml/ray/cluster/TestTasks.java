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
import java.util.Random;

/** Tasks the driver-process tests send. */
final class TestTasks {

    private TestTasks() {}

    /** Returns its text and the driver's pid. */
    static final class Echo implements DriverTask<String> {
        private static final long serialVersionUID = 1L;
        private final String text;

        Echo(String text) {
            this.text = text;
        }

        @Override
        public String run(DriverContext context) {
            return text + "@" + ProcessHandle.current().pid() + "@" + context.address();
        }
    }

    /** Emits its step numbers as events, one unserializable one among them, then returns. */
    static final class Countdown implements DriverTask<String> {
        private static final long serialVersionUID = 1L;
        private final int steps;

        Countdown(int steps) {
            this.steps = steps;
        }

        @Override
        public String run(DriverContext context) {
            for (int i = 1; i <= steps; i++) {
                context.emit(i);
                if (i == 2) {
                    context.emit(new java.util.ArrayList<>(List.of(new Object())));
                }
            }
            return "done";
        }
    }

    /** Throws a DmlException (with a hint) or a plain exception. */
    static final class Fail implements DriverTask<String> {
        private static final long serialVersionUID = 1L;
        private final boolean dml;

        Fail(boolean dml) {
            this.dml = dml;
        }

        @Override
        public String run(DriverContext context) {
            if (dml) {
                throw new DmlException("Nothing to train.", "Load a dataset first.");
            }
            throw new IllegalStateException("boom");
        }
    }

    /** Sleeps, interruptibly. */
    static final class Sleep implements DriverTask<String> {
        private static final long serialVersionUID = 1L;
        private final long millis;

        Sleep(long millis) {
            this.millis = millis;
        }

        @Override
        public String run(DriverContext context) throws InterruptedException {
            Thread.sleep(millis);
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
     * result against the mean, and broadcasts.
     */
    static final class RingCheck implements DriverTask<RingReport> {
        private static final long serialVersionUID = 1L;
        private final String name;
        private final int size;
        private final int length;

        RingCheck(String name, int size, int length) {
            this.name = name;
            this.size = size;
            this.length = length;
        }

        @Override
        public RingReport run(DriverContext context) {
            ActorGroup<ProbeWorker> group = context.register(name, ActorGroup
                    .builder(ProbeWorker::new).setSize(size).optCpusPerActor(0.5)
                    .addJvmOption("-Xmx512m").optTimeout(Duration.ofSeconds(60)).open());
            RingReport report = new RingReport();
            report.driverPid = ProcessHandle.current().pid();
            report.actorPids.addAll(group.callAll(ProbeWorker::pid));
            report.actorMaxHeaps.addAll(group.callAll(ProbeWorker::maxHeapBytes));
            Random rnd = new Random(length);
            List<float[]> in = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                float[] a = new float[length];
                for (int i = 0; i < length; i++) {
                    a[i] = rnd.nextFloat() * 2 - 1;
                }
                in.add(a);
            }
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

package dev.dml.bench;

import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.Dml;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.cluster.RayCluster;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.data.DataFiles;
import dev.dml.ray.data.LabelKind;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.runner.TrainJob;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainingListener;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * P12's kernel, run in its own JVM with a small heap: opens a cluster, then times setFiles to
 * the first step of a 2-worker job and prints {@code P12 key=value} lines.
 */
final class FirstStepKernel {

    private FirstStepKernel() {}

    public static void main(String[] args) throws Exception {
        String folder = args[0];
        String cache = args[1];
        try (RayCluster cluster = MlpJobs.openCluster();
                DriverProcess driver = cluster.openDriver()) {
            CompletableFuture<Long> started = new CompletableFuture<>();
            CompletableFuture<Long> firstStep = new CompletableFuture<>();
            TrainingListener l = new TrainingListener() {
                @Override
                public void onStart(List<WorkerInfo> workers) {
                    started.complete(System.nanoTime());
                }

                @Override
                public void onStep(StepMetrics s) {
                    firstStep.complete(System.nanoTime());
                }
            };
            long t0 = System.nanoTime();
            DataFiles files = DataFiles.open(folder);
            ColumnSelection sel = ColumnSelection.allExcept(files.read(0, null),
                    SyntheticFraud.LABEL, LabelKind.CLASSES);
            TrainSpec spec = TrainSpec.builder().setFiles(files).setColumns(sel)
                    .setModel(ModelSpec.Family.MLP, 64, 32).optWorkers(2).optBatchSize(512)
                    .optEpochs(1).optCpusPerWorker(1).optReportEvery(1)
                    .opt(dev.dml.options.TrainOptions.STEPS_PER_EPOCH, 20)
                    .addWorkerJvmOption("-Djava.io.tmpdir=" + cache)
                    .addListener(l).optName("p12").build();
            long t1 = System.nanoTime();
            TrainJob job = Dml.start(spec, driver);
            long t2 = started.get(10, TimeUnit.MINUTES);
            long t3 = firstStep.get(10, TimeUnit.MINUTES);
            job.await(Duration.ofMinutes(10));
            System.out.println("P12 scan_s=" + (t1 - t0) / 1e9);
            System.out.println("P12 workers_up_s=" + (t2 - t1) / 1e9);
            System.out.println("P12 load_and_first_step_s=" + (t3 - t2) / 1e9);
            System.out.println("P12 first_step_s=" + (t3 - t0) / 1e9);
            long peak = 0;
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() == MemoryType.HEAP) {
                    peak += pool.getPeakUsage().getUsed();
                }
            }
            System.out.println("P12 kernel_heap_peak_mb=" + peak / 1e6);
        }
    }
}

package dev.dml.ray.runs;

import dev.dml.events.EpochMetrics;
import dev.dml.events.StepMetrics;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import java.nio.file.Path;
import java.util.List;
import tech.tablesaw.api.Table;

/**
 * A process that records a run and is killed while it runs ({@link RunStoreTest}): it records
 * {@link #STEPS} steps and one epoch, says {@code recorded RUN-ID} on its standard output, and
 * then waits (at most two minutes) to be killed.
 */
public final class RecordingChild {

    static final int STEPS = 3;

    private RecordingChild() {}

    /** The loss this process reports at a step. */
    static float loss(long step) {
        return 1f / (step + 1);
    }

    /** A small job, never run: the settings and data a recorder records. */
    static TrainSpec spec() {
        Table t = SyntheticFraud.generate(64, 1);
        t.setName("fraud");
        return TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(ModelSpec.mlp(SyntheticFraud.FEATURES + 1, 2, 8)).optEpochs(3)
                .optName("killed").build();
    }

    /**
     * Records the run.
     *
     * @param args the run store's folder
     */
    public static void main(String[] args) throws Exception {
        RunStore store = RunStore.open(Path.of(args[0]));
        RunRecorder run = RunRecorder.start(store, spec());
        for (long step = 1; step <= STEPS; step++) {
            run.onStep(new StepMetrics(1, step, loss(step), 32, 100.0 * step, 1, 0, 0, 0,
                    List.of(), System.currentTimeMillis()));
        }
        run.onEpoch(new EpochMetrics(1, STEPS, STEPS, 0.5f, 1.5, 64, Float.NaN, Double.NaN,
                Double.NaN));
        run.flush(); // the recorder writes in batches: what it had is in the store now
        System.out.println("recorded " + run.runId());
        System.out.flush();
        Thread.sleep(120_000);
    }
}

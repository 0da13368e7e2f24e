package dev.dml.ray.cluster;

import dev.dml.options.Placement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.Resize;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.options.TrainOptions;
import dev.dml.ray.Dml;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.result.TrainResult;
import dev.dml.ray.train.TrainSpec;
import dev.dml.ray.train.TrainingListener;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * An elastic job ({@code --workers 2:3}) on a real cluster of namespaced nodes of 1 CPU each:
 * it starts with the two nodes there are, grows onto a node that joins, shrinks when a node is
 * lost and no other has room, and still ends with the parameters of a job that had three
 * workers throughout.
 */
@Tag("cluster")
@Tag("slow")
class ElasticIT extends NamespacedRay {

    private static final Duration WAIT = Duration.ofMinutes(10);

    @BeforeAll
    static void start() throws Exception {
        open(3, "ElasticIT");
    }

    private static TrainSpec spec(String name, Table rows, int min, int max,
            TrainingListener listener) {
        var b = TrainSpec.builder().setTable(rows).setColumns(SyntheticFraud.selection())
                // a model whose steps take tens of ms over any transport, so that the node joins
                // and is lost while the job runs; the direct links make small steps too fast
                .setModel(ModelSpec.Family.MLP, 1024, 1024)
                .optOptimizer(OptimizerSpec.adam(0.001f))
                .optEpochs(12).optBatchSize(64).optWorkers(min, max).optReportEvery(2)
                .optSeed(5).opt(TrainOptions.PLACEMENT, Placement.SPREAD).optName(name);
        return (listener == null ? b : b.addListener(listener)).build();
    }

    /** Adds a node once the job runs; takes away the newest worker's node once it grew. */
    static final class Weather implements TrainingListener {
        final List<Resize> resizes = new CopyOnWriteArrayList<>();
        volatile int startedWith;
        volatile long grewAt = -1;
        volatile boolean removed;
        volatile long lastStep;

        @Override
        public void onStart(List<WorkerInfo> w) {
            startedWith = w.size();
            try {
                nodes.addNode(); // blocks this listener's thread, not the job
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void onResize(Resize r) {
            resizes.add(r);
            if (r.grew()) {
                grewAt = r.step();
            }
        }

        @Override
        public void onStep(StepMetrics s) {
            lastStep = s.step();
            if (grewAt >= 0 && !removed && s.step() >= grewAt + 20) {
                removed = true;
                String ip = resizes.get(0).workers().get(2).nodeIp();
                nodes.nodes().stream().filter(n -> n.ip().equals(ip)).findFirst()
                        .ifPresent(nodes::removeNode);
            }
        }
    }

    @Test
    void growsOntoAJoiningNodeShrinksOnALostOneAndEndsWhereAFixedJobDoes() {
        Table rows = SyntheticFraud.generate(3 * 64 * 40, 9);
        TrainResult fixed = Dml.start(spec("three", rows, 3, 3, null), driver).await(WAIT);
        nodes.removeNode(nodes.nodes().get(2)); // two nodes of 1 CPU: room for 2 workers
        Weather weather = new Weather();
        TrainResult r = Dml.start(spec("elastic", rows, 2, 3, weather), driver).await(WAIT);
        assertEquals(2, weather.startedWith, "starts with what the cluster can place");
        assertEquals(2, weather.resizes.size(), "grew, then shrank: " + weather.resizes
                + "; the job ended at step " + weather.lastStep);
        Resize grew = weather.resizes.get(0);
        Resize shrank = weather.resizes.get(1);
        assertTrue(grew.grew() && grew.from() == 2 && grew.to() == 3, grew.toString());
        assertTrue(!shrank.grew() && shrank.from() == 3 && shrank.to() == 2, shrank.toString());
        assertEquals(1, r.recoveries().size(), r.recoveries().toString());
        assertEquals("a peer's snapshot", r.recoveries().get(0).restoredFrom());
        assertEquals(2, r.workers().size());
        assertEquals(fixed.globalSteps(), r.globalSteps());
        float[] a = fixed.parameters();
        float[] b = r.parameters();
        for (int i = 0; i < a.length; i++) {
            assertTrue(Math.abs(a[i] - b[i]) <= 1e-4 + 1e-3 * Math.abs(a[i]),
                    "parameter " + i + ": " + a[i] + " vs " + b[i]);
        }
    }
}

package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.events.StepMetrics;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.collective.LocalRay;
import dev.dml.ray.collective.NodeLayouts;
import dev.dml.ray.data.SyntheticFraud;
import dev.dml.ray.model.OptimizerSpec;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.Table;

/**
 * An asynchronous job whose ranks are joined again mid-job on other nodes, as a recovery that
 * moves ranks between nodes joins them (issue 26 row 3): every rank and the parameter servers
 * take the new node layout, so each node has one leader that pushes, and no client the servers
 * wait for is missing ({@code ssp:0} would stall on one).
 */
class NodeLayoutLocalTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @BeforeAll
    static void startRay() throws IOException {
        LocalRay.start();
    }

    @AfterAll
    static void stopRay() throws IOException {
        LocalRay.stop();
    }

    /** The job's actor group, from its control in the context. */
    private static ActorGroup<?> group(FakeDriverContext ctx) {
        for (AutoCloseable r : ctx.resources().values()) {
            if (r instanceof JobControl control) {
                try {
                    var field = JobControl.class.getDeclaredField("groups");
                    field.setAccessible(true);
                    for (Object g : (List<?>) field.get(control)) {
                        if (g instanceof ActorGroup<?> group) {
                            return group;
                        }
                    }
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        throw new IllegalStateException("no job runs");
    }

    @Test
    void row3AfterRanksMoveBetweenNodesEachNodeHasOneLeaderAndEveryClientPushes() {
        Table t = SyntheticFraud.generate(4 * 16 * 6, 11);
        TrainSpec spec = TrainSpec.builder().setTable(t).setColumns(SyntheticFraud.selection())
                .setModel(TrainLocalTest.mlp(t)).optOptimizer(OptimizerSpec.adam(0.01f))
                .optEpochs(2).optBatchSize(16).optCpusPerWorker(0).optReportEvery(2)
                .optWorkers(4).optSync("ssp:0").optParameterServers(1).optName("layout").build();
        // after step 4 two nodes of two ranks; after step 8 rank 0 moved to the second node,
        // which rank 0 then leads, and rank 1 is alone on the first and leads it
        Map<Long, List<String>> moves = Map.of(4L, List.of("a", "a", "b", "b"),
                8L, List.of("b", "a", "b", "b"));
        AtomicReference<FakeDriverContext> holder = new AtomicReference<>();
        FakeDriverContext ctx = new FakeDriverContext(e -> {
            if (e instanceof StepMetrics m && moves.containsKey(m.step())) {
                NodeLayouts.rejoin(group(holder.get()), moves.get(m.step()), TIMEOUT);
            }
        });
        holder.set(ctx);
        TrainResult r = JobRunner.of(spec, spec.name(), TIMEOUT).run(ctx);
        assertTrue(ctx.resources.isEmpty(), "the job left resources");
        assertEquals(12, r.globalSteps());
        long perClient = 2L * r.parameters().length * Float.BYTES; // a push and its reply
        for (StepMetrics s : r.steps()) {
            // one client per worker while all share a node; then one per node, its leader
            long clients = s.step() <= 4 ? 4 : 2;
            assertEquals(clients * perClient, s.allReduceBytes(), "step " + s.step());
        }
        assertTrue(Float.isFinite(r.finalLoss()));
    }
}

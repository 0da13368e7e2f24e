package dev.dml.kernel.backend;

import dev.dml.events.ProgressListener;
import dev.dml.magics.PreparedJob;
import dev.dml.magics.RunningJob;
import dev.dml.magics.TrainRequest;
import dev.dml.ray.Dml;
import dev.dml.ray.cluster.DriverProcess;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.TrainSpec;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A {@code %dml train} request resolved into the engine's spec, with the table validated and
 * nothing started; {@link #start} runs it on the session's driver.
 */
final class PreparedRayJob implements PreparedJob {

    private final TrainRequest request;
    private final TrainSpec spec;
    private final Function<String, DriverProcess> drivers;

    /**
     * @param request the request
     * @param spec its spec
     * @param drivers the session's driver on a cluster address (null: the session's cluster)
     */
    PreparedRayJob(TrainRequest request, TrainSpec spec, Function<String, DriverProcess> drivers) {
        this.request = request;
        this.spec = spec;
        this.drivers = drivers;
    }

    TrainSpec spec() {
        return spec;
    }

    @Override
    public RunningJob start(ProgressListener progress) {
        DriverProcess driver = drivers.apply(request.cluster());
        return new RunningRayJob(Dml.start(spec, driver, List.of(progress)));
    }

    @Override
    public String name() {
        return spec.name();
    }

    @Override
    public int epochs() {
        return spec.epochs();
    }

    @Override
    public long totalSteps() {
        return (long) spec.stepsPerEpoch() * spec.epochs();
    }

    @Override
    public String description() {
        String workers = spec.minWorkers() < spec.workers()
                ? spec.minWorkers() + " to " + spec.workers() + " workers (elastic)"
                : spec.workers() + (spec.workers() == 1 ? " worker" : " workers");
        return String.format("%s on %,d rows x %d features, %s", describe(spec.model()),
                spec.trainRows(), spec.columns().inputCount(), workers);
    }

    private static String describe(ModelSpec model) {
        String family = model.family().name().toLowerCase(Locale.ROOT).replace('_', ' ');
        int[] hidden = model.hidden();
        return hidden.length == 0 ? family : family + " " + Arrays.toString(hidden);
    }

    @Override
    public TrainRequest request() {
        return request;
    }
}

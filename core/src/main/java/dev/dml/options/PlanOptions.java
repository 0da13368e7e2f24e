package dev.dml.options;

import java.util.List;
import java.util.Optional;

/**
 * The options {@code %dml plan} takes besides {@code %dml train}'s, each declared once. A plan
 * reads every train option as the job it plans would; {@link TrainOptions#WORKERS} names the
 * sizes it compares ({@code 1:4} is every size from 1 to 4).
 */
public final class PlanOptions {

    private PlanOptions() {}

    /** Instance types to price beside the cluster's own. */
    public static final Option<List<String>> INSTANCES = Declaration.kernel("instances",
            ValueType.names(), "T1,T2,...", "instance types from the price catalogue to list"
            + " beside the cluster's own nodes; a type the cluster has no node of shows its"
            + " price with its time not measured").example("m5.2xlarge,g5.xlarge")
            .noDefault("only the cluster's own nodes").java("JobPlanner.addInstance").done();

    /** Steps each probe trains. */
    public static final Option<Integer> PROBE_STEPS = Declaration.kernel("probe-steps",
            ValueType.count(), "N", "steps each probe trains, on the real cluster, to measure"
            + " a size's step time (at least 30; the first half warms up)").example("60")
            .fixed(100)
            .java("JobPlanner.optProbeSteps").done();

    /** Every option {@code %dml plan} adds, in the order help lists them. */
    public static final List<Option<?>> ALL = List.of(INSTANCES, PROBE_STEPS);

    /**
     * Finds an option of any {@code %dml} command by name: the plan's, the scaling table's,
     * the sweep's, then {@code %dml train}'s.
     *
     * @param name the flag without {@code --}
     * @return the option
     */
    public static Optional<Option<?>> byName(String name) {
        for (Option<?> o : ALL) {
            if (o.name().equals(name)) {
                return Optional.of(o);
            }
        }
        for (Option<?> o : ScaleOptions.ALL) {
            if (o.name().equals(name)) {
                return Optional.of(o);
            }
        }
        for (Option<?> o : TuneOptions.ALL) {
            if (o.name().equals(name)) {
                return Optional.of(o);
            }
        }
        if (name.equals(TuneOptions.SWEEP.name())) {
            return Optional.of(TuneOptions.SWEEP);
        }
        return TrainOptions.byName(name);
    }
}

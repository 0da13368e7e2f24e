package dev.dml.ray.train.settings;

import dev.dml.options.SyncMode;

/**
 * What {@code --sync} means to the parameter servers. The rules that refuse it next to other
 * options are in {@link OptionRuleTable}.
 */
public final class SyncResolution {

    private SyncResolution() {}

    /**
     * The staleness bound of a {@code --sync} value.
     *
     * @param mode sync, async or ssp:S
     * @return S, or -1 for none (async), or -2 for sync (no servers)
     */
    public static int staleness(SyncMode mode) {
        return switch (mode.kind()) {
            case SYNC -> -2;
            case ASYNC -> -1;
            case SSP -> mode.staleness();
        };
    }
}

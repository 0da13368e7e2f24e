package dev.dml.ray.predict;

import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.cluster.DriverTask;

/** Kills the workers of a running prediction: its wait then fails and the prediction ends. */
final class StopScoring implements DriverTask<Boolean> {

    private static final long serialVersionUID = 1L;

    private final String key;

    StopScoring(String key) {
        this.key = key;
    }

    @Override
    public Boolean run(DriverContext context) {
        context.release(key);
        return true;
    }
}

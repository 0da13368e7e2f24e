package dev.dml.ray.predict;

import dev.dml.ray.cluster.DriverContext;
import dev.dml.ray.cluster.DriverTask;

/**
 * Kills the workers of a running prediction: its wait then fails and the prediction ends. A
 * driver task, only Java-serialized, so a record.
 *
 * @param key the prediction's key in the driver
 */
record StopScoring(String key) implements DriverTask<Boolean> {

    @Override
    public Boolean run(DriverContext context) {
        context.release(key);
        return true;
    }
}

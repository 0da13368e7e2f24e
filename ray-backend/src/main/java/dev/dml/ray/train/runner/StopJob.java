package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverTask;
import dev.dml.ray.cluster.DriverContext;

/**
 * Asks a running job to stop after its current steps ({@code kill == false}), or kills its
 * actors at once ({@code kill == true}). A driver task, only Java-serialized, so a record.
 *
 * @param key the job's key in the driver
 * @param kill whether to kill its actors at once
 */
public record StopJob(String key, boolean kill) implements DriverTask<Boolean> {

    @Override
    public Boolean run(DriverContext context) {
        JobControl c;
        try {
            c = context.lookup(key, JobControl.class);
        } catch (DmlException e) {
            return false; // already ended
        }
        if (kill) {
            c.close();
        } else {
            c.requestStop();
        }
        return true;
    }
}

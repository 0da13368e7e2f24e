package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.ray.cluster.DriverTask;
import dev.dml.ray.cluster.DriverContext;

/**
 * Asks a running job to stop after its current steps ({@code kill == false}), or kills its
 * actors at once ({@code kill == true}).
 */
public final class StopJob implements DriverTask<Boolean> {

    private static final long serialVersionUID = 1L;

    private final String key;
    private final boolean kill;

    public StopJob(String key, boolean kill) {
        this.key = key;
        this.kill = kill;
    }

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

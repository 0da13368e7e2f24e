package dev.dml.ray.train;

import dev.dml.ray.collective.JoinFailingWorker;
import dev.dml.ray.train.worker.TrainWorker;

/**
 * A train worker that fails when it joins a group once {@link JoinFailingWorker#failNewOnes}
 * is set as it is created: a new worker of a growing job that dies after the survivors opened
 * their new endpoints. LOCAL mode only.
 */
public class JoinFailingTrainWorker extends TrainWorker {

    /** Creates a worker; a broken one while the flag is set. */
    public JoinFailingTrainWorker() {
        if (JoinFailingWorker.failNewOnes) {
            JoinFailingWorker.breakJoin(this);
        }
    }
}

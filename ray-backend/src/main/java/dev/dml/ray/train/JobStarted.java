package dev.dml.ray.train;

import dev.dml.ray.collective.WorkerInfo;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/** The event the driver sends once the workers run; a plain Serializable class. */
final class JobStarted implements Serializable {

    private static final long serialVersionUID = 1L;

    final ArrayList<WorkerInfo> workers;

    JobStarted(List<WorkerInfo> workers) {
        this.workers = new ArrayList<>(workers);
    }
}

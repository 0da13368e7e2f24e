package dev.dml.magics;

import dev.dml.magics.live.EpochSample;
import dev.dml.magics.live.StageSample;
import dev.dml.magics.live.StepSample;
import dev.dml.magics.live.WorkerRow;
import java.util.List;

/** A running job's progress, as the backend reports it from one thread. */
public interface JobEvents {

    /**
     * The workers have started.
     *
     * @param workers rank, node and pid of each
     */
    void started(List<WorkerRow> workers);

    /**
     * A training step ended.
     *
     * @param sample its metrics
     */
    void step(StepSample sample);

    /**
     * An epoch ended.
     *
     * @param sample its metrics
     */
    void epoch(EpochSample sample);

    /**
     * A pipeline step's stages reported their busy and idle time.
     *
     * @param step the step
     * @param stages one sample per stage
     */
    void stages(long step, List<StageSample> stages);
}

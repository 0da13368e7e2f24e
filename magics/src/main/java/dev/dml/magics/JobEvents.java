package dev.dml.magics;

import dev.dml.magics.live.EpochSample;
import dev.dml.magics.live.LiveDashboard;
import dev.dml.magics.live.StageSample;
import dev.dml.magics.live.StepSample;
import dev.dml.magics.live.WorkerRow;
import java.util.List;

/** A running job's progress, as the backend reports it from one thread. */
public interface JobEvents {

    /**
     * Events that feed a live dashboard, as {@code %dml train} draws it.
     *
     * @param dashboard the dashboard
     * @return the events
     */
    static JobEvents feeding(LiveDashboard dashboard) {
        return new JobEvents() {
            @Override
            public void started(List<WorkerRow> workers) {
                dashboard.start(workers);
            }

            @Override
            public void step(StepSample sample) {
                dashboard.addStep(sample);
            }

            @Override
            public void epoch(EpochSample sample) {
                dashboard.addEpoch(sample);
            }

            @Override
            public void stages(long step, List<StageSample> stages) {
                dashboard.addStages(step, stages);
            }
        };
    }

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

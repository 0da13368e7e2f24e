package dev.dml.ray.train;

import dev.dml.Vocabulary;
import dev.dml.events.JobCost;
import dev.dml.events.JobNotice;
import dev.dml.events.PipelineMetrics;
import dev.dml.events.ProgressListener;
import dev.dml.events.StepMetrics;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a notebook's live plot would be given, for tests to look at: the steps, pipeline
 * events, costs and notices (in the notebook's words) of the jobs it listens to.
 */
public class RecordedEvents implements ProgressListener {

    public final List<StepMetrics> steps = new CopyOnWriteArrayList<>();
    public final List<PipelineMetrics> pipeline = new CopyOnWriteArrayList<>();
    public final List<JobCost> costs = new CopyOnWriteArrayList<>();
    public final List<String> notices = new CopyOnWriteArrayList<>();

    @Override
    public void onStep(StepMetrics step) {
        steps.add(step);
    }

    @Override
    public void onPipeline(PipelineMetrics p) {
        pipeline.add(p);
    }

    @Override
    public void onCost(JobCost cost) {
        costs.add(cost);
    }

    @Override
    public void onNotice(JobNotice notice) {
        notices.add(Vocabulary.NOTEBOOK.render(notice.template()));
    }
}

package dev.dml.magics.live;
import java.util.List;
/** TEMP stand-in until the real renderer merges. */
public final class LiveDashboard {
    private final String name; private final long total; private volatile long step; private volatile double loss; private volatile boolean dirty = true; private volatile long oldest;
    private final java.util.List<StepSample> steps = new java.util.concurrent.CopyOnWriteArrayList<>();
    public LiveDashboard(String jobName, int epochs, long totalSteps) { name = jobName; total = totalSteps; }
    public void start(List<WorkerRow> workers) { dirty = true; }
    public void addStep(StepSample s) { step = s.step(); loss = s.loss(); if (oldest == 0) oldest = s.reportedAtMillis(); steps.add(s); dirty = true; }
    public void addEpoch(EpochSample e) { dirty = true; }
    public void addStages(long step, List<StageSample> stages) { dirty = true; }
    public boolean isDirty() { return dirty; }
    public String progress() { return "step " + step + "/" + total; }
    public Frame frame() { dirty = false; long o = oldest; oldest = 0; return new Frame("<svg xmlns=\"http://www.w3.org/2000/svg\"><text>" + name + " step " + step + "/" + total + " loss " + loss + "</text></svg>", "step " + step + "/" + total + " loss " + loss, o); }
    public JobSummary summary(String job, boolean stopped, double wallSeconds) { return new JobSummary(job, stopped, wallSeconds, step, loss, Double.NaN, Double.NaN, 0, List.of()); }
}

package dev.dml.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a training step's time goes, from a flight recording of the JVM that ran it: each
 * execution or native-method sample of the stepping thread is put in the phase of its innermost
 * frame that a rule names ({@link #RULES}), so a sample inside libtorch's backward counts as
 * backward and one inside the loss read as the loss. The stepping thread is the one with the
 * most samples under {@code ModelStage}; the shares of its samples, times the measured step
 * time, give milliseconds per phase. JFR's 'profile' settings sample a thread in Java code
 * every 10 ms and one in native code (libtorch) every 20 ms, so a native sample counts twice.
 */
final class StepPhases {

    /** A step's phases, in the order a step runs them. */
    enum Phase {
        BATCH("batch staging: the rows of the step, in the epoch's shuffled order"),
        FORWARD("forward"),
        LOSS("loss, and reading it back (the step's one host sync)"),
        BACKWARD("backward (autograd), whole or bucketed"),
        GRADIENT_COPIES("gradient copies out of and into the model, scaling"),
        ALL_REDUCE("all-reduce and its waits"),
        OPTIMIZER("optimizer update and zeroing the gradients"),
        FREE("freeing the step's arrays: the autograd graph, activations, gradients' views"),
        SNAPSHOT("in-memory snapshot of the state, parameter hash for the replica check"),
        REPORT("process sample, report, the call's own work"),
        OTHER("anything else on the stepping thread (array scopes, JNI glue)");

        final String what;

        Phase(String what) {
            this.what = what;
        }
    }

    /** Frame prefixes ({@code class.method}), checked innermost frame first. */
    private static final List<Map.Entry<String, Phase>> RULES = List.of(
            Map.entry("ai.djl.pytorch.jni.JniUtils.backward", Phase.BACKWARD),
            Map.entry("dev.dml.ray.model.BucketedBackward", Phase.BACKWARD),
            Map.entry("dev.dml.ray.data.ShardArrays.openRows", Phase.BATCH),
            Map.entry("dev.dml.ray.data.BatchStager", Phase.BATCH),
            Map.entry("dev.dml.ray.model.Objective", Phase.LOSS),
            Map.entry("dev.dml.ray.model.ModelStage.backwardLoss", Phase.LOSS),
            Map.entry("dev.dml.ray.model.StageLayers.forward", Phase.FORWARD),
            Map.entry("dev.dml.ray.model.ModelStage.forward", Phase.FORWARD),
            Map.entry("dev.dml.ray.model.ParameterBuffers.zeroGradients", Phase.OPTIMIZER),
            Map.entry("dev.dml.ray.model.ParameterBuffers.copyGradients", Phase.GRADIENT_COPIES),
            Map.entry("dev.dml.ray.model.ParameterBuffers.setGradients", Phase.GRADIENT_COPIES),
            Map.entry("dev.dml.ray.train.worker.DataParallelStep.scale", Phase.GRADIENT_COPIES),
            Map.entry("dev.dml.ray.model.FlatOptimizer", Phase.OPTIMIZER),
            Map.entry("dev.dml.ray.model.DeviceOptimizer", Phase.OPTIMIZER),
            Map.entry("dev.dml.ray.model.LossScale", Phase.OPTIMIZER),
            Map.entry("dev.dml.ray.collective", Phase.ALL_REDUCE),
            Map.entry("dev.dml.ray.train.worker.TrainWorker.snapshot", Phase.SNAPSHOT),
            Map.entry("dev.dml.ray.train.worker.TrainWorker.hash", Phase.SNAPSHOT),
            Map.entry("dev.dml.ray.model.ModelStage.parameters", Phase.SNAPSHOT),
            Map.entry("dev.dml.ray.train.device.ProcessSampler", Phase.REPORT),
            Map.entry("dev.dml.ray.train.worker.TrainWorker.trainSteps", Phase.REPORT),
            Map.entry("dev.dml.ray.model.ModelStage.trainBatch", Phase.OTHER),
            Map.entry("dev.dml.ray.model.MicroBatchGraph.close", Phase.FREE),
            Map.entry("ai.djl.ndarray.BaseNDManager.close", Phase.FREE),
            Map.entry("dev.dml.ray.model.ModelStage.step", Phase.OPTIMIZER),
            Map.entry("dev.dml.ray.train.worker.DataParallelStep", Phase.OTHER),
            Map.entry("dev.dml.bench", Phase.OTHER));

    private StepPhases() {}

    /**
     * Counts the stepping thread's samples per phase, in milliseconds of sampling.
     *
     * @param jfr a flight recording with execution and native-method samples
     * @return samples per phase, in step order; empty when no thread ran a model
     */
    static Map<Phase, Integer> samples(Path jfr) throws IOException {
        // milliseconds each sample stands for, per profile.jfc
        Map<String, Integer> weight = Map.of("jdk.ExecutionSample", 10,
                "jdk.NativeMethodSample", 20);
        Map<Long, Map<Phase, Integer>> byThread = new HashMap<>();
        Map<Long, Integer> modelSamples = new HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            String type = e.getEventType().getName();
            Integer w = weight.get(type);
            if (w == null) {
                continue;
            }
            RecordedStackTrace st = e.getStackTrace();
            if (st == null || e.getThread("sampledThread") == null) {
                continue;
            }
            long tid = e.getThread("sampledThread").getJavaThreadId();
            Phase p = null;
            boolean model = false;
            for (RecordedFrame f : st.getFrames()) {
                if (f.getMethod() == null) {
                    continue;
                }
                String name = f.getMethod().getType().getName() + "." + f.getMethod().getName();
                model |= name.startsWith("dev.dml.ray.model.ModelStage");
                if (p == null) {
                    p = phase(name);
                }
            }
            if (p == null) {
                continue; // not part of a step: Ray's threads, the driver's calls
            }
            byThread.computeIfAbsent(tid, t -> new EnumMap<>(Phase.class)).merge(p, w,
                    Integer::sum);
            if (model) {
                modelSamples.merge(tid, w, Integer::sum);
            }
        }
        return modelSamples.entrySet().stream().max(Map.Entry.comparingByValue())
                .map(best -> byThread.get(best.getKey()))
                .orElse(new EnumMap<>(Phase.class));
    }

    /**
     * What a recording holds, to tell an empty profile from an empty recording: its samples
     * by kind, and the innermost frames of the most sampled thread.
     */
    static Map<String, Object> contents(Path jfr) throws IOException {
        Map<String, Integer> kinds = new java.util.TreeMap<>();
        Map<String, Map<String, Integer>> frames = new HashMap<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
            String type = e.getEventType().getName();
            boolean sample = type.equals("jdk.ExecutionSample")
                    || type.equals("jdk.NativeMethodSample");
            if (!sample || e.getStackTrace() == null) {
                continue;
            }
            kinds.merge(type, 1, Integer::sum);
            String thread = e.getThread("sampledThread") == null ? "?"
                    : e.getThread("sampledThread").getJavaName();
            List<RecordedFrame> fs = e.getStackTrace().getFrames();
            String top = fs.isEmpty() || fs.get(0).getMethod() == null ? "?"
                    : fs.get(0).getMethod().getType().getName() + "." + fs.get(0).getMethod()
                            .getName();
            frames.computeIfAbsent(thread, t -> new HashMap<>()).merge(top, 1, Integer::sum);
        }
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("samples", kinds);
        frames.entrySet().stream().max(java.util.Comparator.comparingInt(
                t -> t.getValue().values().stream().mapToInt(Integer::intValue).sum()))
                .ifPresent(t -> {
                    out.put("busiest_thread", t.getKey());
                    out.put("its_top_frames", t.getValue().entrySet().stream()
                            .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                            .limit(6).map(f -> f.getKey() + " " + f.getValue()).toList());
                });
        return out;
    }

    private static Phase phase(String frame) {
        for (Map.Entry<String, Phase> r : RULES) {
            if (frame.startsWith(r.getKey())) {
                return r.getValue();
            }
        }
        return null;
    }

    /**
     * Turns sample counts into milliseconds per step.
     *
     * @param samples per phase
     * @param stepMs the measured wall time of a step
     * @return ms per phase, rounded to 0.01, in step order
     */
    static Map<String, Double> millis(Map<Phase, Integer> samples, double stepMs) {
        int total = samples.values().stream().mapToInt(Integer::intValue).sum();
        Map<String, Double> out = new java.util.LinkedHashMap<>();
        for (Phase p : Phase.values()) {
            int n = samples.getOrDefault(p, 0);
            out.put(p.name().toLowerCase(java.util.Locale.ROOT),
                    total == 0 ? 0 : TrialTimes.round(stepMs * n / total, 2));
        }
        return out;
    }
}

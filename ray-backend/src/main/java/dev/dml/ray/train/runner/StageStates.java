package dev.dml.ray.train.runner;

import dev.dml.DmlException;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.collective.ActorGroup;
import dev.dml.ray.train.recovery.Checkpoints;
import dev.dml.ray.train.recovery.StageFile;
import dev.dml.ray.train.worker.TrainWorker;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The training state of a job's stages, whatever the strategy: one actor group per stage (a
 * data-parallel job is one stage), whose rank 0 speaks for it and whose replicas all take what
 * is restored. What checkpoints and the result need from the workers. Lives in the driver.
 */
final class StageStates {

    private StageStates() {}

    /**
     * Each stage's state, from its rank 0, in stage order; with {@code everyRank} (a sharded
     * optimizer, {@link StrategyWorkers#gathersState}) every rank takes part in gathering it.
     */
    static List<byte[]> save(List<ActorGroup<TrainWorker>> stages, boolean everyRank) {
        List<byte[]> states = new ArrayList<>();
        for (ActorGroup<TrainWorker> g : stages) {
            states.add(everyRank ? g.callAll(TrainWorker::stageState).get(0)
                    : g.callOne(0, TrainWorker::saveState));
        }
        return states;
    }

    /**
     * Has each stage's rank 0 write its state into a file of {@code folder}, which the workers
     * see at the same path (the shared store).
     */
    static List<StageFile> saveTo(List<ActorGroup<TrainWorker>> stages,
            Path folder, int run, long step, boolean everyRank) {
        List<StageFile> files = new ArrayList<>();
        for (int s = 0; s < stages.size(); s++) {
            String file = folder.resolve(StageFile.fileName(run, step, s)).toString();
            ActorGroup<TrainWorker> g = stages.get(s);
            files.add(everyRank ? g.callAll(TrainWorker::saveStateTo, file).get(0)
                    : g.callOne(0, TrainWorker::saveStateTo, file));
        }
        return files;
    }

    /** Loads each stage's state into every replica of the stage. */
    static void restore(List<ActorGroup<TrainWorker>> stages, List<byte[]> states) {
        requireStages(stages, states.size());
        for (int s = 0; s < stages.size(); s++) {
            stages.get(s).callAll(TrainWorker::restore, states.get(s));
        }
    }

    /**
     * Has every replica of each stage load its stage's file, which lies beside the checkpoint
     * ({@link Checkpoints#stageFile}).
     */
    static void restoreFrom(List<ActorGroup<TrainWorker>> stages, Path checkpoint,
            List<StageFile> files) {
        requireStages(stages, files.size());
        for (int s = 0; s < stages.size(); s++) {
            StageFile f = files.get(s);
            stages.get(s).callAll(TrainWorker::restoreFrom, new StageFile(
                    StageFile.beside(checkpoint, f.name()).toString(), f.length(),
                    f.crc()));
        }
    }

    /** The workers that cannot read {@code path}. */
    static List<WorkerInfo> cannotSee(List<ActorGroup<TrainWorker>> stages, Path path) {
        List<WorkerInfo> out = new ArrayList<>();
        for (ActorGroup<TrainWorker> g : stages) {
            List<Boolean> sees = g.callAll(TrainWorker::sees, path.toString());
            for (int r = 0; r < sees.size(); r++) {
                if (!sees.get(r)) {
                    out.add(g.workers().get(r));
                }
            }
        }
        return out;
    }

    /** The whole model's parameters, stage after stage, from each stage's rank 0. */
    static float[] parameters(List<ActorGroup<TrainWorker>> stages) {
        float[] params = new float[0];
        for (ActorGroup<TrainWorker> g : stages) {
            float[] part = floats(g.callOne(0, TrainWorker::parameterBytes));
            float[] all = Arrays.copyOf(params, params.length + part.length);
            System.arraycopy(part, 0, all, params.length, part.length);
            params = all;
        }
        return params;
    }

    private static void requireStages(List<ActorGroup<TrainWorker>> stages, int saved) {
        if (saved != stages.size()) {
            throw new DmlException("The checkpoint holds " + saved + " stages; this job has "
                    + stages.size() + ".", "Resume with the same {stages}, or use a new"
                    + " {checkpoint-dir}.");
        }
    }

    private static float[] floats(byte[] bytes) {
        float[] out = new float[bytes.length / Float.BYTES];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(out);
        return out;
    }
}

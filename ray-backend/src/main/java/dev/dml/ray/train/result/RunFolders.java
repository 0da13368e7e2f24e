package dev.dml.ray.train.result;

import dev.dml.DmlEnv;
import dev.dml.DmlException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Where recorded runs keep their files: the run store's folder ({@code $DML_RUNS_DIR}, else
 * {@code ~/.local/share/dml/runs}), in it one folder per run, and in that the trained model as
 * {@link TrainResult#save} wrote it, which {@link TrainResult#open(String)} reopens.
 */
public final class RunFolders {

    /** The run ids dml makes: a job name, its start time and a few hex digits. */
    private static final Pattern RUN_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private RunFolders() {}

    /**
     * Returns the run store's folder in the user's dml folder.
     *
     * @return {@code $DML_RUNS_DIR}, else {@code ~/.local/share/dml/runs}
     */
    public static Path defaultStore() {
        return DmlEnv.system().runsDir(Path.of(System.getProperty("user.home")));
    }

    /**
     * Returns the folder a run's trained model is saved in.
     *
     * @param store the run store's folder
     * @param runId the run
     * @return its model's folder
     */
    public static Path model(Path store, String runId) {
        return store.resolve(runId).resolve("model");
    }

    /** Reopens the model a run saved, or says which run or model is missing. */
    public static TrainResult openModel(Path store, String runId) {
        if (!RUN_ID.matcher(runId).matches() || !Files.isDirectory(store.resolve(runId))) {
            throw new DmlException("No run '" + DmlException.literal(runId)
                    + "' in the run store " + DmlException.literal(store) + ".",
                    "Take a run id from Runs.open().table() (%dml runs in a notebook).");
        }
        Path dir = model(store, runId);
        if (!Files.isDirectory(dir)) {
            throw new DmlException("Run '" + DmlException.literal(runId) + "' kept no model: it"
                    + " failed before its end, or its model could not be saved (the kernel log"
                    + " says why).",
                    "Reopen a finished run's model; Runs.open().table() lists each run's"
                    + " status.");
        }
        return ResultFiles.read(dir);
    }
}

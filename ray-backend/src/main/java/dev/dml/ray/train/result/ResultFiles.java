package dev.dml.ray.train.result;

import dev.dml.DmlException;
import dev.dml.ray.cluster.Payloads;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.FolderSwap;
import dev.dml.ray.model.ModelExport;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.ModelStage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The files of a saved {@link TrainResult}: the result itself, Java-serialized (it already
 * crosses Ray that way), through which it comes back into dml, read back through {@link
 * Payloads}' filter (dml's and the JDK's value classes only, arrays no longer than the file);
 * and the formats programs without dml load. The same bytes carry a model to the workers of
 * a distributed prediction ({@link #toBytes}, {@link #fromBytes}).
 */
public final class ResultFiles {

    /** The file's name in a saved model's folder. */
    static final String FILE = ModelExport.RESULT_FILE;

    private ResultFiles() {}

    /**
     * Serializes a result, as {@link TrainResult#save} stores it.
     *
     * @param result the result
     * @return its bytes, for {@link #fromBytes}
     */
    public static byte[] toBytes(TrainResult result) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(result);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e); // memory only: cannot happen
        }
        return bytes.toByteArray();
    }

    /**
     * Reads the bytes {@link #toBytes} made, through {@link Payloads}' filter.
     *
     * @param bytes the bytes
     * @return the result
     * @throws DmlException when the bytes hold no result this dml can read
     */
    public static TrainResult fromBytes(byte[] bytes) {
        try {
            return (TrainResult) Payloads.read(bytes);
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new DmlException("Could not read the model sent to this worker: "
                    + DmlException.literal(String.valueOf(e.getMessage())) + ".",
                    "Run the kernel and the workers with the same dml version.", e);
        }
    }

    /**
     * Refuses a model the formats of {@link #save} cannot describe: their layers (linear,
     * conv2d, ...) have no embedding, and a safetensors file of them would load into a wrong
     * network.
     */
    static void requireExportable(TrainResult result) {
        ModelSpec spec = result.model();
        if (spec.family() == ModelSpec.Family.CUSTOM) {
            throw new DmlException("This model is your own " + DmlException.literal(
                    spec.block()) + ", whose layers save cannot describe for plain DJL and"
                    + " PyTorch.", "Predict with it in this session (model.predict, %dml"
                    + " predict), or save its parameters from model.openModel().");
        }
        if (spec.embeddings().isEmpty()) {
            return;
        }
        List<String> embedded = result.columns().features().stream()
                .filter(result.columns().vocabulary()::embeds).toList();
        throw new DmlException("This " + (spec.family() == ModelSpec.Family.MF ? "mf model"
                : "model") + " embeds the columns " + DmlException.literal(embedded) + ", and"
                + " save writes formats for plain DJL and PyTorch that have no embedding layer"
                + " yet.", spec.family() == ModelSpec.Family.MF ? "Predict with it in this"
                + " session (model.predict, %dml predict)." : "Predict with it in this session"
                + " (model.predict, %dml predict), or train with {embed-above} at least the"
                + " columns' distinct values to one-hot encode them.");
    }

    /**
     * Saves a result into {@code dir}: {@link #FILE}, and the formats programs without dml
     * load (DJL's, safetensors, dml-model.json), all swapped in at once ({@link FolderSwap}).
     */
    public static void save(TrainResult result, Path dir) {
        requireExportable(result); // before any file is written
        ColumnSelection features = result.columns();
        try (ModelStage whole = result.openReplica()) {
            List<String> names = features.classNames();
            ModelExport.save(whole, new ModelExport.Info(features.inputs(),
                    features.hasLabel() ? features.label() : null,
                    names.isEmpty() ? null : names, features.features(),
                    features.vocabulary().categories()), dir, Map.of(FILE, toBytes(result)));
        }
    }

    /** Reads the result that {@link #save} wrote into {@code dir}. */
    public static TrainResult read(Path dir) {
        Path file = FolderSwap.whole(dir, FILE).resolve(FILE);
        if (!Files.isRegularFile(file)) {
            throw new DmlException("The folder " + DmlException.literal(dir) + " holds no model"
                    + " saved by dml (no " + FILE + ").", "Pass a folder that"
                    + " TrainResult.save wrote.");
        }
        try {
            return (TrainResult) Payloads.read(Files.readAllBytes(file));
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new DmlException("Could not read the model in " + DmlException.literal(dir)
                    + ": " + DmlException.literal(e.getMessage()) + ".", "Save it again with"
                    + " this version of dml.", e);
        }
    }
}

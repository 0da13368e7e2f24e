package dev.dml.ray.model;

import ai.djl.Device;
import ai.djl.Model;
import ai.djl.ndarray.types.DataType;
import ai.djl.nn.Block;
import ai.djl.nn.Parameter;
import ai.djl.nn.SequentialBlock;
import com.google.gson.GsonBuilder;
import dev.dml.DmlException;
import dev.dml.ray.data.FeatureStats;
import dev.dml.ray.data.FeatureVocabulary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A trained model out of dml: as a DJL {@link Model} in this JVM, or saved to a folder that
 * programs without dml load.
 *
 * <p>{@link #save} writes three files:
 * <ul>
 *   <li>{@code model-0000.params}: DJL's own format ({@link Model#save}). A plain DJL program
 *       rebuilds the block from {@code dml-model.json} (a standardisation block, then one block
 *       per layer), calls {@code setBlock} and {@code Model.load(dir)}.
 *   <li>{@code model.safetensors}: the weights for PyTorch, named as in an {@code nn.Sequential}
 *       of the layers ({@code 0.weight}, {@code 0.bias}, ...). The standardisation is folded
 *       into the first layer when it is linear, so raw features go straight in.
 *   <li>{@code dml-model.json}: what a loader needs: the model's inputs in order ({@code
 *       features}), the label, the class names when the label had them, for text features
 *       the table's columns and each text column's categories ({@code columns}, {@code
 *       one_hot}: see {@link dev.dml.ray.data.FeatureVocabulary}), the standardisation, the layers
 *       and the function from outputs to predictions ({@code softmax}, {@code sigmoid}, {@code
 *       identity}).
 * </ul>
 */
public final class ModelExport {

    /** The DJL model's name: its parameters are {@code model-0000.params}. */
    public static final String DJL_NAME = "model";
    /** The description a loader reads first. */
    public static final String JSON_FILE = "dml-model.json";
    /** The PyTorch weights. */
    public static final String SAFETENSORS_FILE = "model.safetensors";
    /** The file of {@code TrainResult.save} that dml itself reads back. */
    public static final String RESULT_FILE = "dml-result.ser";
    /** The files a save writes: a folder holding others is not replaced. */
    private static final Set<String> FILES = Set.of(DJL_NAME + "-0000.params",
            SAFETENSORS_FILE, JSON_FILE, RESULT_FILE);
    /** The version of {@code dml-model.json}'s layout. */
    public static final int FORMAT_VERSION = 1;

    private ModelExport() {}

    /**
     * What a loader needs besides the weights.
     *
     * @param features the model's inputs, in the order the model reads them: the numeric
     *     feature columns and the one-hot inputs {@code c=v} of the text columns
     * @param label the label column, or {@code null}
     * @param classNames the name of each class index, or {@code null} when the label held
     *     class indices already
     * @param columns the table's feature columns, in order
     * @param categories the categories of each text column, in input order (its inputs are
     *     {@code c=v} for each, then {@code c=(other)}); empty without text features
     */
    public record Info(List<String> features, String label, List<String> classNames,
            List<String> columns, Map<String, List<String>> categories) {
        /** Copies the lists. */
        public Info {
            features = List.copyOf(features);
            classNames = classNames == null ? null : List.copyOf(classNames);
            columns = List.copyOf(columns);
            categories = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(categories));
        }

        /**
         * The info of a model whose features are all numeric columns.
         *
         * @param features the feature columns, in the order the model reads them
         * @param label the label column, or {@code null}
         * @param classNames the name of each class index, or {@code null}
         */
        public Info(List<String> features, String label, List<String> classNames) {
            this(features, label, classNames, features, Map.of());
        }
    }

    /**
     * Opens a DJL model holding a copy of a whole model's block and trained parameters, ready
     * for {@code newPredictor} or {@code save}. Its input is the features {@code [B, inputs]},
     * its output the raw scores (logits) {@code [B, outputs]}.
     *
     * @param whole a whole model (every layer), borrowed
     * @return a new DJL model, owned by the caller
     */
    public static Model openDjlModel(ModelStage whole) {
        if (!whole.isFirst() || !whole.isLast()) {
            throw new DmlException("Only a whole model becomes a DJL model, not a pipeline stage.",
                    "Open it with ModelStage.openWhole.");
        }
        ModelSpec spec = whole.spec();
        Model model = Model.newInstance(DJL_NAME, Device.cpu(), "PyTorch");
        try {
            Block block = spec.newBlock();
            block.initialize(model.getNDManager(), DataType.FLOAT32, spec.inputShape());
            model.setBlock(block);
            List<Parameter> to = new ArrayList<>(block.getParameters().values());
            List<Parameter> from = new ArrayList<>(whole.block().getParameters().values());
            if (to.size() != from.size()) {
                throw new IllegalStateException("the rebuilt block has " + to.size()
                        + " parameters, the trained one " + from.size());
            }
            for (int i = 0; i < to.size(); i++) {
                // written through the tensor's own memory: see ParameterBuffers
                ParameterBuffers.view(to.get(i).getArray()).put(from.get(i).getArray()
                        .toFloatArray());
            }
            return model;
        } catch (RuntimeException e) {
            model.close();
            throw e;
        }
    }

    /**
     * Saves a whole model to a folder (made if missing; an earlier save there is replaced as a
     * whole, see {@link FolderSwap}).
     *
     * @param whole the whole model, borrowed
     * @param info the columns and class names
     * @param dir the folder
     * @throws DmlException when the folder cannot be written
     */
    public static void save(ModelStage whole, Info info, Path dir) {
        save(whole, info, dir, Map.of());
    }

    /**
     * Saves a whole model and more files of the same save ({@link #RESULT_FILE}) to a folder:
     * all written beside it first, then swapped in, so the folder holds either the whole
     * earlier save or the whole new one.
     *
     * @param whole the whole model, borrowed
     * @param info the columns and class names
     * @param dir the folder
     * @param more more files by name, written with the model's
     * @throws DmlException when the folder cannot be written, or holds other files
     */
    public static void save(ModelStage whole, Info info, Path dir, Map<String, byte[]> more) {
        ModelSpec spec = whole.spec();
        if (spec.family() == ModelSpec.Family.CUSTOM) {
            throw new DmlException("The model is a user's " + DmlException.literal(spec.block())
                    + "; dml-model.json and safetensors describe built-in layers only.",
                    "Save the parameters from the DJL model of openDjlModel.");
        }
        if (!spec.embeddings().isEmpty()) {
            throw new DmlException("The model embeds its inputs " + spec.embeddings() + "; the"
                    + " layers of dml-model.json and safetensors have no embedding yet.",
                    "Predict with it in dml, or one-hot encode the columns ({embed-above}).");
        }
        if (info.features().size() != spec.inputs()) {
            throw new IllegalArgumentException(info.features().size()
                    + " feature names for a model of " + spec.inputs() + " inputs");
        }
        Set<String> names = new HashSet<>(FILES);
        names.addAll(more.keySet());
        try {
            FolderSwap.replace(dir, names, folder -> {
                for (Map.Entry<String, byte[]> f : more.entrySet()) {
                    Files.write(folder.resolve(f.getKey()), f.getValue());
                }
                writeInto(whole, info, folder);
            });
        } catch (IOException e) {
            throw new DmlException("Could not save the model to " + DmlException.literal(dir)
                    + ": " + DmlException.literal(e.getMessage()) + ".",
                    "Pass a folder you can write to.", e);
        }
    }

    /** Writes the three files into a new folder. */
    private static void writeInto(ModelStage whole, Info info, Path dir) throws IOException {
        ModelSpec spec = whole.spec();
        try (Model model = openDjlModel(whole)) {
            model.setProperty("Epoch", "0"); // else DJL numbers a second save model-0001
            model.save(dir, DJL_NAME);
            List<Block> children = new ArrayList<>(
                    ((SequentialBlock) model.getBlock()).getChildren().values());
            List<ModelLayout.Layer> layers = ModelLayout.of(spec);
            int first = children.size() - layers.size(); // 1 with a standardisation block
            Map<String, Safetensors.Tensor> tensors = new LinkedHashMap<>();
            List<Map<String, Object>> described = new ArrayList<>();
            for (int i = 0; i < layers.size(); i++) {
                described.add(describe(layers.get(i), i, children.get(first + i), tensors));
            }
            boolean folded = spec.standardize() != null && layers.get(0).type().equals("linear");
            if (folded) {
                StandardizationFold.apply(spec.standardize(), tensors.get("0.weight"),
                        tensors.get("0.bias"));
            }
            Safetensors.write(dir.resolve(SAFETENSORS_FILE), tensors,
                    Map.of("format", "pt", "producer", "dml"));
            Files.writeString(dir.resolve(JSON_FILE), json(spec, info, described, folded));
        }
    }

    /** The layer's arguments, with the sizes of a parametric layer read off its weights. */
    private static Map<String, Object> describe(ModelLayout.Layer layer, int index, Block block,
            Map<String, Safetensors.Tensor> tensors) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", layer.type());
        if (layer.parametric() != !block.getParameters().isEmpty()) {
            throw new IllegalStateException("layer " + index + " (" + layer.type()
                    + ") does not match the block " + block);
        }
        if (layer.parametric()) {
            Parameter w = block.getParameters().get("weight");
            long[] shape = w.getArray().getShape().getShape();
            out.put(layer.type().equals("linear") ? "in" : "in_channels", shape[1]);
            tensors.put(index + ".weight", new Safetensors.Tensor(shape,
                    w.getArray().toFloatArray()));
            Parameter b = block.getParameters().get("bias");
            tensors.put(index + ".bias", new Safetensors.Tensor(
                    b.getArray().getShape().getShape(), b.getArray().toFloatArray()));
            out.put("weight", index + ".weight");
            out.put("bias", index + ".bias");
        }
        out.putAll(layer.args());
        return out;
    }

    private static String json(ModelSpec spec, Info info, List<Map<String, Object>> layers,
            boolean folded) {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("format", "dml-model");
        root.put("version", FORMAT_VERSION);
        root.put("features", info.features());
        if (!info.categories().isEmpty()) {
            // how a plain program turns a row of the table into the model's inputs
            root.put("columns", info.columns());
            Map<String, Object> oneHot = new LinkedHashMap<>();
            oneHot.put("rule", "each text column c of 'columns' becomes the inputs c=v for each"
                    + " of its categories, in order, then c=(other); a row sets the input of its"
                    + " value to 1 and the others to 0; an unseen or missing value sets"
                    + " c=(other); one-hot inputs are not standardised (mean 0, std 1)");
            oneHot.put("other", FeatureVocabulary.OTHER);
            oneHot.put("categories", info.categories());
            root.put("one_hot", oneHot);
        }
        if (info.label() != null) {
            root.put("label", info.label());
        }
        if (info.classNames() != null) {
            root.put("class_names", info.classNames());
        }
        root.put("inputs", spec.inputs());
        root.put("outputs", spec.outputs());
        root.put("objective", spec.objective().name());
        root.put("output", ModelLayout.output(spec.objective()));
        FeatureStats stats = spec.standardize();
        if (stats != null) {
            root.put("standardize", Map.of("mean", stats.means(), "std", stats.stds()));
        }
        root.put("layers", layers);
        root.put("djl", Map.of("engine", "PyTorch", "name", DJL_NAME,
                "params", DJL_NAME + "-0000.params",
                "blocks", (stats != null ? "standardize, then " : "") + "one block per layer"));
        root.put("safetensors", Map.of("file", SAFETENSORS_FILE,
                "standardization_folded", folded));
        return new GsonBuilder().setPrettyPrinting().create().toJson(root) + "\n";
    }
}

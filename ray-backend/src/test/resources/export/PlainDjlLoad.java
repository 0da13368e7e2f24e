import ai.djl.Model;
import ai.djl.inference.Predictor;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Blocks;
import ai.djl.nn.LambdaBlock;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;
import ai.djl.translate.NoopTranslator;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * A plain DJL program, compiled and run by ModelSaveTest with only DJL (api, PyTorch engine)
 * and Gson on its class path, no dml: it loads a folder that TrainResult.save wrote and prints
 * the predictions of every row of a CSV file, one line per row.
 *
 * <p>Usage: {@code java PlainDjlLoad MODEL_DIR ROWS.csv}
 */
public class PlainDjlLoad {

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        JsonObject meta = JsonParser.parseString(Files.readString(dir.resolve("dml-model.json")))
                .getAsJsonObject();
        SequentialBlock net = new SequentialBlock();
        if (meta.has("standardize")) {
            float[] mean = floats(meta.getAsJsonObject("standardize").getAsJsonArray("mean"));
            float[] std = floats(meta.getAsJsonObject("standardize").getAsJsonArray("std"));
            net.add(new LambdaBlock(in -> {
                NDArray x = in.singletonOrThrow();
                NDManager m = x.getManager();
                return new NDList(x.sub(m.create(mean)).div(m.create(std)));
            }, "standardize"));
        }
        for (JsonElement e : meta.getAsJsonArray("layers")) {
            JsonObject layer = e.getAsJsonObject();
            switch (layer.get("type").getAsString()) {
                case "linear" -> net.add(Linear.builder().setUnits(layer.get("out").getAsLong())
                        .build());
                case "relu" -> net.add(Activation.reluBlock());
                case "flatten" -> net.add(Blocks.batchFlattenBlock());
                case "unflatten" -> {
                    long[] s = longs(layer.getAsJsonArray("shape"));
                    net.add(new LambdaBlock(in -> new NDList(in.singletonOrThrow()
                            .reshape(-1, s[0], s[1], s[2])), "image"));
                }
                case "permute" -> {
                    int[] d = Arrays.stream(longs(layer.getAsJsonArray("dims")))
                            .mapToInt(v -> (int) v).toArray();
                    net.add(new LambdaBlock(in -> new NDList(in.singletonOrThrow()
                            .transpose(d)), "permute"));
                }
                case "conv2d" -> net.add(Conv2d.builder()
                        .setKernelShape(new Shape(longs(layer.getAsJsonArray("kernel"))))
                        .optPadding(new Shape(longs(layer.getAsJsonArray("padding"))))
                        .setFilters(layer.get("out_channels").getAsInt()).build());
                case "maxpool2d" -> net.add(Pool.maxPool2dBlock(
                        new Shape(longs(layer.getAsJsonArray("kernel"))),
                        new Shape(longs(layer.getAsJsonArray("stride")))));
                default -> throw new IllegalArgumentException("layer " + layer);
            }
        }
        List<String> lines = Files.readAllLines(Path.of(args[1]));
        List<String> header = Arrays.asList(lines.get(0).split(","));
        JsonArray features = meta.getAsJsonArray("features");
        // text columns are one-hot encoded as dml-model.json's one_hot.rule says
        JsonObject categories = meta.has("one_hot")
                ? meta.getAsJsonObject("one_hot").getAsJsonObject("categories") : new JsonObject();
        JsonArray columns = meta.has("columns") ? meta.getAsJsonArray("columns") : features;
        int rows = lines.size() - 1;
        int width = features.size();
        float[] x = new float[rows * width];
        for (int r = 0; r < rows; r++) {
            String[] cells = lines.get(r + 1).split(",", -1);
            int i = r * width;
            for (int c = 0; c < columns.size(); c++) {
                String name = columns.get(c).getAsString();
                String cell = cells[header.indexOf(name)];
                if (!categories.has(name)) {
                    x[i++] = Float.parseFloat(cell);
                    continue;
                }
                JsonArray cats = categories.getAsJsonArray(name);
                int hot = cats.size(); // the other input, unless the value is a category
                for (int k = 0; k < cats.size(); k++) {
                    hot = cats.get(k).getAsString().equals(cell) ? k : hot;
                }
                x[i + hot] = 1f;
                i += cats.size() + 1;
            }
        }
        try (Model model = Model.newInstance("model", "PyTorch")) {
            model.setBlock(net);
            model.load(dir);
            try (Predictor<NDList, NDList> predictor = model.newPredictor(new NoopTranslator());
                 NDManager manager = NDManager.newBaseManager()) {
                NDArray in = manager.create(x, new Shape(rows, features.size()));
                NDArray out = predictor.predict(new NDList(in)).singletonOrThrow();
                out = switch (meta.get("output").getAsString()) {
                    case "softmax" -> out.softmax(1);
                    case "sigmoid" -> Activation.sigmoid(out);
                    default -> out;
                };
                float[] p = out.toFloatArray();
                int k = p.length / rows;
                StringBuilder text = new StringBuilder();
                for (int r = 0; r < rows; r++) {
                    for (int j = 0; j < k; j++) {
                        text.append(j == 0 ? "" : ",").append(p[r * k + j]);
                    }
                    text.append('\n');
                }
                System.out.print(text);
            }
        }
    }

    private static float[] floats(JsonArray a) {
        float[] out = new float[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).getAsFloat();
        }
        return out;
    }

    private static long[] longs(JsonArray a) {
        long[] out = new long[a.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = a.get(i).getAsLong();
        }
        return out;
    }
}

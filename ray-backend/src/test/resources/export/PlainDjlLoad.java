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
        int rows = lines.size() - 1;
        float[] x = new float[rows * features.size()];
        for (int r = 0; r < rows; r++) {
            String[] cells = lines.get(r + 1).split(",");
            for (int f = 0; f < features.size(); f++) {
                x[r * features.size() + f] = Float.parseFloat(
                        cells[header.indexOf(features.get(f).getAsString())]);
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

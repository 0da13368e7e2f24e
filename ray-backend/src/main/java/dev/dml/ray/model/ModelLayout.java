package dev.dml.ray.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The layers of a built-in model family, after its standardisation, described so that a plain
 * DJL program (one block per layer) or PyTorch ({@code nn.Sequential}, one module per layer)
 * can rebuild them: {@code linear}, {@code relu}, {@code unflatten}, {@code permute} (of
 * channel-last pixels), {@code conv2d}, {@code maxpool2d}, {@code flatten}. Mirrors {@link
 * ModelBlocks#build}; {@link ModelExport} checks each parametric layer against the trained block,
 * so the two cannot drift apart unnoticed.
 */
final class ModelLayout {

    /** CNN convolutions: 5x5 kernels, padded to keep the size (as {@link ModelBlocks}). */
    static final int[] CONV_KERNEL = {5, 5};
    static final int[] CONV_PADDING = {2, 2};
    static final int[] POOL = {2, 2};

    private ModelLayout() {}

    /**
     * One layer: its type and arguments, in the order they are written to {@code
     * dml-model.json}.
     *
     * @param type the layer type
     * @param args its arguments; parametric layers get their sizes from the trained weights
     */
    record Layer(String type, Map<String, Object> args) {
        boolean parametric() {
            return type.equals("linear") || type.equals("conv2d");
        }
    }

    /** The layers of the spec's block, without its standardisation. */
    static List<Layer> of(ModelSpec spec) {
        List<Layer> out = new ArrayList<>();
        if (spec.family() == ModelSpec.Family.CNN) {
            int[] image = spec.image(); // {C, H, W}; a row's pixels are channel-last
            if (image[0] == 1) {
                out.add(layer("unflatten", "shape", image));
            } else {
                out.add(layer("unflatten", "shape", new int[] {image[1], image[2], image[0]}));
                out.add(layer("permute", "dims", new int[] {0, 3, 1, 2}));
            }
            int[] channels = spec.convChannels();
            boolean[] pools = pools(spec);
            for (int i = 0; i < channels.length; i++) {
                out.add(layer("conv2d", "out_channels", channels[i], "kernel", CONV_KERNEL,
                        "padding", CONV_PADDING));
                out.add(layer("relu"));
                if (pools[i]) {
                    out.add(layer("maxpool2d", "kernel", POOL, "stride", POOL));
                }
            }
            out.add(layer("flatten"));
        }
        if (spec.family() != ModelSpec.Family.LOGISTIC_REGRESSION) {
            for (int units : spec.hidden()) {
                out.add(layer("linear", "out", units));
                out.add(layer("relu"));
            }
        }
        out.add(layer("linear", "out", spec.outputs()));
        return out;
    }

    /**
     * Which convolutions a 2x2 max-pool follows: each while the image is still at least 4
     * pixels on its shorter side, so a small image (8x8: 4x4, then 2x2) keeps a valid shape.
     */
    static boolean[] pools(ModelSpec spec) {
        int[] image = spec.image();
        int h = image[1];
        int w = image[2];
        boolean[] out = new boolean[spec.convChannels().length];
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.min(h, w) >= 2 * POOL[0];
            if (out[i]) {
                h /= POOL[0];
                w /= POOL[1];
            }
        }
        return out;
    }

    /** The function that turns the model's outputs into predictions. */
    static String output(Objective objective) {
        switch (objective) {
            case SOFTMAX_CROSS_ENTROPY:
                return "softmax";
            case SIGMOID_BINARY_CROSS_ENTROPY:
                return "sigmoid";
            default:
                return "identity";
        }
    }

    /**
     * The floats one row's forward pass makes, summed over the layers (reshapes are views), or
     * 0 where the layers are not known here (a user's block, matrix factorization's embeddings).
     */
    static long activationFloats(ModelSpec spec) {
        if (spec.family() == ModelSpec.Family.CUSTOM || spec.family() == ModelSpec.Family.MF) {
            return 0;
        }
        boolean cnn = spec.family() == ModelSpec.Family.CNN;
        int[] image = cnn ? spec.image() : new int[] {1, 1, spec.inputs()};
        long channels = image[0];
        long h = image[1];
        long w = image[2];
        long width = spec.inputs();
        long total = 0;
        for (Layer l : of(spec)) {
            String type = l.type();
            if (type.equals("conv2d")) {
                channels = (Integer) l.args().get("out_channels");
                width = channels * h * w;
            } else if (type.equals("maxpool2d")) {
                h /= POOL[0];
                w /= POOL[1];
                width = channels * h * w;
            } else if (type.equals("linear")) {
                width = (Integer) l.args().get("out");
            } else if (!type.equals("relu")) {
                continue; // unflatten, permute, flatten: views of the last array
            }
            total += width;
        }
        return total;
    }

    private static Layer layer(String type, Object... keyValues) {
        Map<String, Object> args = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            args.put((String) keyValues[i], keyValues[i + 1]);
        }
        return new Layer(type, args);
    }
}

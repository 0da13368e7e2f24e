package dev.dml.ray.train.settings;

import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.model.ModelSpecBuilder;
import java.util.List;

/**
 * The shape of a cnn's images: {@code --image HxWxC}, or a square of one channel inferred
 * from the feature count; a shape that does not fit the features is refused in one line
 * ({@code --image} on another family is refused in {@link OptionRuleTable}).
 */
public final class ImageResolution {

    private ImageResolution() {}

    /**
     * Sets the image shape of a cnn's builder.
     *
     * @param v the options
     * @param features the model's inputs
     * @param b the builder of a cnn
     */
    public static void apply(OptionValues v, int features, ModelSpecBuilder b) {
        List<Integer> image = v.get(TrainOptions.IMAGE);
        if (image == null) {
            int side = (int) Math.round(Math.sqrt(features));
            if (side * side != features) {
                throw new DmlException("A cnn needs its images' shape: " + features
                        + " feature columns are not a square image of one channel.",
                        "Set {image} to the images' HxWxC (H x W x C = " + features + ")"
                                + example(features) + ", or select only the pixel columns.");
            }
            b.optImage(1, side, side);
            return;
        }
        int h = image.get(0);
        int w = image.get(1);
        int c = image.get(2);
        long pixels = (long) h * w * c;
        if (pixels != features) {
            String shape = TrainOptions.IMAGE.type().format(image);
            throw new DmlException("The shape " + shape + " ({image}) holds " + pixels
                    + " pixel values, but the selected feature columns make " + features + ".",
                    "Set {image} so that H x W x C = " + features + example(features)
                            + ", or select the " + pixels + " pixel columns.");
        }
        b.optImage(c, h, w);
    }

    /** A square shape of 3 or 1 channels that fits, as an example; empty when none does. */
    private static String example(int features) {
        for (int c : new int[] {3, 1}) {
            int side = (int) Math.round(Math.sqrt(features / (double) c));
            if (features % c == 0 && side * side * c == features) {
                return ", such as " + side + "x" + side + (c == 1 ? "" : "x" + c);
            }
        }
        return "";
    }
}

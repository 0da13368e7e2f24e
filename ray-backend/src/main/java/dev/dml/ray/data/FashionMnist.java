package dev.dml.ray.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import dev.dml.DmlException;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;
import tech.tablesaw.api.FloatColumn;
import tech.tablesaw.api.IntColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Fashion-MNIST read from its idx files ({@code train-images-idx3-ubyte.gz} and so on), with
 * pixels scaled to {@code [0, 1]}.
 *
 * <p>Debian's {@code dataset-fashion-mnist} package installs the files in {@link #DEBIAN_DIR};
 * nothing is downloaded.
 *
 * <pre>{@code
 * FashionMnist train =
 *         FashionMnist.load(FashionMnist.DEBIAN_DIR, FashionMnist.Split.TRAIN, 10_000);
 * Table t = train.toTable();                   // px0..px783 + label
 * }</pre>
 */
public final class FashionMnist {

    /** Where Debian's {@code dataset-fashion-mnist} package puts the files. */
    public static final Path DEBIAN_DIR = Path.of("/usr/share/datasets/fashion-mnist");
    /** Image height and width. */
    public static final int SIDE = 28;
    /** Pixels per image, the feature count. */
    public static final int PIXELS = SIDE * SIDE;
    /** The number of classes. */
    public static final int CLASSES = 10;
    /** The label column of {@link #toTable()}. */
    public static final String LABEL = "label";

    /** Which half of the data set. */
    public enum Split {
        /** 60,000 training images. */
        TRAIN("train"),
        /** 10,000 test images. */
        TEST("t10k");

        private final String prefix;

        Split(String prefix) {
            this.prefix = prefix;
        }
    }

    private final float[] pixels;
    private final int[] labels;

    private FashionMnist(float[] pixels, int[] labels) {
        this.pixels = pixels;
        this.labels = labels;
    }

    /**
     * Loads the first {@code limit} images of a split.
     *
     * @param dir the folder with the four {@code .gz} idx files
     * @param split train or test
     * @param limit the number of images to keep; {@code 0} or less keeps all
     * @return the images and labels
     */
    public static FashionMnist load(Path dir, Split split, int limit) {
        Path images = dir.resolve(split.prefix + "-images-idx3-ubyte.gz");
        Path labels = dir.resolve(split.prefix + "-labels-idx1-ubyte.gz");
        if (!Files.isRegularFile(images) || !Files.isRegularFile(labels)) {
            throw new DmlException(
                    "Fashion-MNIST files are not in " + dir + " (looked for " + images.getFileName()
                            + " and " + labels.getFileName() + ").",
                    "Install them with 'apt-get install dataset-fashion-mnist', or pass the folder"
                            + " that holds them.");
        }
        try (DataInputStream im = open(images);
                DataInputStream lb = open(labels)) {
            int n = header(im, 2051, images);
            int rows = im.readInt();
            int cols = im.readInt();
            int m = header(lb, 2049, labels);
            if (rows != SIDE || cols != SIDE || n != m) {
                throw new IOException("unexpected shape " + n + "x" + rows + "x" + cols + ", " + m);
            }
            int keep = limit > 0 ? Math.min(limit, n) : n;
            byte[] raw = im.readNBytes(keep * PIXELS);
            byte[] lab = lb.readNBytes(keep);
            if (raw.length != keep * PIXELS || lab.length != keep) {
                throw new IOException("file is truncated");
            }
            float[] px = new float[raw.length];
            for (int i = 0; i < raw.length; i++) {
                px[i] = (raw[i] & 0xff) / 255f;
            }
            int[] y = new int[keep];
            for (int i = 0; i < keep; i++) {
                y[i] = lab[i];
            }
            return new FashionMnist(px, y);
        } catch (IOException e) {
            throw new DmlException(
                    "Could not read Fashion-MNIST from " + dir + ": " + e.getMessage(),
                    "Reinstall the files with 'apt-get install --reinstall dataset-fashion-mnist'.",
                    e);
        }
    }

    /**
     * Returns the number of images.
     *
     * @return the image count
     */
    public int size() {
        return labels.length;
    }

    /**
     * Returns the pixels, row-major {@code [size, 784]}, scaled to {@code [0, 1]}. Not a copy.
     *
     * @return the pixel array
     */
    public float[] pixels() {
        return pixels;
    }

    /**
     * Returns the labels {@code 0..9}. Not a copy.
     *
     * @return the label array
     */
    public int[] labels() {
        return labels;
    }

    /**
     * Copies the images into DJL arrays: features {@code [size, 784]} and labels {@code [size]}.
     *
     * @param manager the manager that will own the arrays
     * @return the arrays, owned by the caller
     */
    public ShardArrays openArrays(NDManager manager) {
        NDArray x = manager.create(pixels, new Shape(size(), PIXELS));
        NDArray y = manager.create(labels, new Shape(size()));
        return new ShardArrays(x, y, pixelNames(), LabelKind.CLASSES, CLASSES);
    }

    /**
     * Returns a table with float columns {@code px0..px783} and an int column {@code label}.
     *
     * @return the table
     */
    public Table toTable() {
        int n = size();
        List<Column<?>> cols = new ArrayList<>(PIXELS + 1);
        float[] col = new float[n];
        for (int p = 0; p < PIXELS; p++) {
            for (int i = 0; i < n; i++) {
                col[i] = pixels[i * PIXELS + p];
            }
            cols.add(FloatColumn.create("px" + p, col.clone()));
        }
        cols.add(IntColumn.create(LABEL, labels.clone()));
        return Table.create("fashion_mnist", cols);
    }

    /**
     * Returns the selection {@code px0..px783 -> label} (10 classes) for {@link #toTable()}.
     *
     * @return the column selection
     */
    public static ColumnSelection selection() {
        return ColumnSelection.builder()
                .addFeatureRange("px", 0, PIXELS - 1)
                .setLabel(LABEL, LabelKind.CLASSES)
                .build();
    }

    private static List<String> pixelNames() {
        List<String> names = new ArrayList<>(PIXELS);
        for (int p = 0; p < PIXELS; p++) {
            names.add("px" + p);
        }
        return names;
    }

    private static DataInputStream open(Path p) throws IOException {
        InputStream in = new GZIPInputStream(Files.newInputStream(p), 1 << 16);
        return new DataInputStream(new java.io.BufferedInputStream(in, 1 << 16));
    }

    private static int header(DataInputStream in, int magic, Path p) throws IOException {
        int m = in.readInt();
        if (m != magic) {
            throw new IOException(p.getFileName() + " has magic " + m + ", expected " + magic);
        }
        return in.readInt();
    }
}

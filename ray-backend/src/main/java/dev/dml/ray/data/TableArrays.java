package dev.dml.ray.data;

import dev.dml.Closeables;
import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import tech.tablesaw.api.Table;

/**
 * Copies a table's selected columns straight into DJL arrays in this JVM, without Arrow: for
 * prediction and single-process training. (Across Ray, use {@link ArrowShards} and {@link
 * ShardDecoder}.)
 *
 * <p>The table is validated first. Values are written once, row-major, into memory that PyTorch
 * allocated, through a direct view of it.
 */
public final class TableArrays {

    private TableArrays() {}

    /**
     * Copies features and, when selected, labels into new arrays.
     *
     * @param table the table
     * @param selection the feature and label columns
     * @param manager the manager that will own the arrays
     * @return the arrays, owned by the caller
     */
    public static ShardArrays openArrays(
            Table table, ColumnSelection selection, NDManager manager) {
        ShardEncoder enc = new ShardEncoder(table, selection);
        int n = enc.rows();
        int f = selection.inputCount();
        NDArray x = manager.create(new Shape(n, f), DataType.FLOAT32);
        NDArray y = null;
        try {
            if (n > 0) {
                enc.fillFeatures(view(x).asFloatBuffer(), null, 0, n);
            }
            if (selection.hasLabel()) {
                boolean classes = selection.labelKind() == LabelKind.CLASSES;
                y = manager.create(new Shape(n), classes ? DataType.INT32 : DataType.FLOAT32);
                if (n > 0 && classes) {
                    enc.fillLabels(view(y).asIntBuffer(), null, 0, n);
                } else if (n > 0) {
                    enc.fillLabels(view(y).asFloatBuffer(), null, 0, n);
                }
            }
        } catch (RuntimeException e) {
            closeQuietly(e, x, y);
            throw e;
        }
        return new ShardArrays(
                x, y, selection.inputs(), selection.labelKind(), enc.classes());
    }

    /**
     * Copies only the feature columns into a new {@code [rows, F]} float32 array.
     *
     * @param table the table (a label column is not needed)
     * @param selection the feature columns; its label, if any, is ignored
     * @param manager the manager that will own the array
     * @return the array, owned by the caller
     */
    public static NDArray openFeatures(Table table, ColumnSelection selection, NDManager manager) {
        ShardEncoder enc = new ShardEncoder(table, selection.featuresOnly());
        Shape shape = new Shape(enc.rows(), selection.inputCount());
        NDArray x = manager.create(shape, DataType.FLOAT32);
        try {
            if (enc.rows() > 0) {
                enc.fillFeatures(view(x).asFloatBuffer(), null, 0, enc.rows());
            }
        } catch (RuntimeException e) {
            closeQuietly(e, x);
            throw e;
        }
        return x;
    }

    private static ByteBuffer view(NDArray a) {
        return a.toByteBuffer(true).order(ByteOrder.nativeOrder());
    }

    /** Frees what a failed fill made; a failure to free stays with the one that caused it. */
    static void closeQuietly(RuntimeException cause, AutoCloseable... made) {
        try {
            Closeables.closeAll(made);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }
}

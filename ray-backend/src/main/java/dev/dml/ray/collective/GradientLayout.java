package dev.dml.ray.collective;

import java.util.Arrays;
import java.util.List;

/**
 * Where each parameter's gradient lies in the flat array a worker all-reduces, and its shape
 * seen as a matrix: {@code rows} is the first dimension and {@code cols} the product of the
 * others, so a linear weight {@code [out, in]} is {@code out x in} and a convolution kernel
 * {@code [out, in, kh, kw]} is {@code out x (in * kh * kw)}. A bias or any other tensor of fewer
 * than two dimensions is a vector ({@code rows = 1}). Schemes that look at the structure of the
 * gradients ({@link PowerSgd}) read it; element-wise schemes ignore it. Built on the worker
 * from its model ({@code ModelStage.parameterShapes()}), in the order of its flat gradients.
 */
public final class GradientLayout {

    private final int[] offsets;
    private final int[] rows;
    private final int[] cols;

    private GradientLayout(int[] offsets, int[] rows, int[] cols) {
        this.offsets = offsets;
        this.rows = rows;
        this.cols = cols;
    }

    /**
     * Lays out tensors of these shapes one after the other.
     *
     * @param shapes each parameter's shape, in the flat array's order
     * @return the layout
     * @throws IllegalArgumentException if the elements do not fit an int or a size is negative
     */
    public static GradientLayout of(List<long[]> shapes) {
        int n = shapes.size();
        int[] offsets = new int[n + 1];
        int[] rows = new int[n];
        int[] cols = new int[n];
        long at = 0;
        for (int i = 0; i < n; i++) {
            long[] shape = shapes.get(i);
            long size = 1;
            for (long d : shape) {
                if (d < 0) {
                    throw new IllegalArgumentException("shape " + Arrays.toString(shape));
                }
                size *= d;
            }
            offsets[i] = Math.toIntExact(at);
            rows[i] = shape.length < 2 ? 1 : Math.toIntExact(shape[0]);
            long perRow = shape.length < 2 ? size : shape[0] == 0 ? 0 : size / shape[0];
            cols[i] = Math.toIntExact(perRow);
            at += size;
        }
        offsets[n] = Math.toIntExact(at);
        return new GradientLayout(offsets, rows, cols);
    }

    /**
     * Returns the number of tensors.
     *
     * @return the count
     */
    public int tensors() {
        return rows.length;
    }

    /**
     * Returns the elements of all tensors together: the flat array's length.
     *
     * @return the count
     */
    public int elements() {
        return offsets[rows.length];
    }

    /**
     * Returns where tensor {@code i} starts in the flat array.
     *
     * @param i the tensor
     * @return the offset
     */
    public int offset(int i) {
        return offsets[i];
    }

    /**
     * Returns tensor {@code i}'s rows as a matrix: its first dimension, or 1 for a vector.
     *
     * @param i the tensor
     * @return the rows
     */
    public int rows(int i) {
        return rows[i];
    }

    /**
     * Returns tensor {@code i}'s columns as a matrix: its other dimensions multiplied.
     *
     * @param i the tensor
     * @return the columns
     */
    public int cols(int i) {
        return cols[i];
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("GradientLayout[");
        for (int i = 0; i < rows.length; i++) {
            b.append(i == 0 ? "" : ", ").append(rows[i]).append('x').append(cols[i]);
        }
        return b.append(']').toString();
    }
}

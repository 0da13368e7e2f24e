package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import ai.djl.ndarray.types.SparseFormat;
import ai.djl.nn.AbstractBlock;
import ai.djl.nn.Parameter;
import ai.djl.nn.core.Embedding;
import ai.djl.training.ParameterStore;
import ai.djl.util.PairList;
import java.util.ArrayList;
import java.util.List;

/**
 * Replaces each category-index input of a row {@code [B, inputs]} with its learnt embedding,
 * keeping the other inputs in place: the output is {@code [B, embeddedWidth]}. Index 0 (an
 * unseen or missing category) always embeds to zeros, so such a row falls back on what the
 * other inputs say, the same way on every run.
 */
final class EmbeddingBlock extends AbstractBlock {

    private static final byte VERSION = 1;

    private final Embeddings embeddings;
    private final List<Parameter> tables = new ArrayList<>();

    EmbeddingBlock(Embeddings embeddings) {
        super(VERSION);
        this.embeddings = embeddings;
        int[] rows = embeddings.rows();
        int[] widths = embeddings.widths();
        for (int i = 0; i < rows.length; i++) {
            tables.add(addParameter(table("embedding" + i, rows[i], widths[i])));
        }
    }

    /** A {@code [rows, width]} table of embeddings, a weight (He-uniform, decayed). */
    static Parameter table(String name, long rows, long width) {
        return Parameter.builder().setName(name).setType(Parameter.Type.WEIGHT)
                .optShape(new Shape(rows, width)).build();
    }

    /**
     * Looks up the rows of {@code table} that the indices in column {@code column} of {@code x}
     * name, zeros for index 0.
     *
     * @return {@code [B, width]}
     */
    static NDArray lookup(NDArray x, int column, NDArray table) {
        NDArray index = x.get(":, " + column).toType(DataType.INT64, false);
        NDArray rows = Embedding.embedding(index, table, SparseFormat.DENSE).singletonOrThrow();
        NDArray known = index.neq(0).toType(rows.getDataType(), false).expandDims(1);
        return rows.mul(known);
    }

    @Override
    protected NDList forwardInternal(ParameterStore store, NDList inputs, boolean training,
            PairList<String, Object> params) {
        NDArray x = inputs.singletonOrThrow();
        int[] at = embeddings.positions();
        NDList parts = new NDList();
        long from = 0;
        for (int i = 0; i < at.length; i++) {
            if (at[i] > from) {
                parts.add(x.get(":, " + from + ":" + at[i]));
            }
            NDArray table = store.getValue(tables.get(i), x.getDevice(), training);
            parts.add(lookup(x, at[i], table));
            from = at[i] + 1L;
        }
        long width = x.getShape().get(1);
        if (from < width) {
            parts.add(x.get(":, " + from + ":"));
        }
        return new NDList(parts.size() == 1 ? parts.get(0) : NDArrays.concat(parts, 1));
    }

    @Override
    public Shape[] getOutputShapes(Shape[] inputs) {
        return new Shape[] {new Shape(inputs[0].get(0),
                embeddings.embeddedWidth((int) inputs[0].get(1)))};
    }

    @Override
    protected void initializeChildBlocks(NDManager manager, DataType dataType, Shape... shapes) {
        // no children: the tables' shapes are known from the spec
    }

    @Override
    public String toString() {
        return "Embedding" + embeddings;
    }
}

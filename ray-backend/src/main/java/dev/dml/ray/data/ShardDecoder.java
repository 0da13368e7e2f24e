package dev.dml.ray.data;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDArrays;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.DataType;
import ai.djl.ndarray.types.Shape;
import dev.dml.DmlException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.types.Types.MinorType;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;

/**
 * Decodes shard bytes (see {@link ShardFormat}) into DJL arrays without per-row Java objects.
 *
 * <p>For a plain shard (the layout {@link ArrowShards} and pyarrow write: no nulls, no
 * compression) the feature and label buffers are copied straight from the IPC bytes into memory
 * that PyTorch allocated: one bulk copy per buffer and batch, no Arrow buffers. Other streams go
 * through Arrow's reader: the body is read into Arrow memory, then each buffer is handed to
 * PyTorch as a zero-copy view and cloned. Either way the arrays own PyTorch memory, freed when
 * they are closed.
 *
 * <p>A decoder owns one child allocator of the parent it is given, named after the job and rank
 * (for example {@code "fraud-3/rank-1"}); closing the decoder closes it and fails with Arrow's
 * "Memory was leaked" error if anything was left open.
 */
public final class ShardDecoder implements AutoCloseable {

    private final BufferAllocator allocator;

    /**
     * Creates a decoder with a child allocator of {@code parent}.
     *
     * @param parent the borrowed parent allocator
     * @param name the child allocator's name, {@code job/rank} by convention
     */
    public ShardDecoder(BufferAllocator parent, String name) {
        this.allocator = parent.newChildAllocator(name, 0, Long.MAX_VALUE);
    }

    /**
     * Returns the allocator this decoder owns (borrowed; do not close it).
     *
     * @return the child allocator
     */
    public BufferAllocator allocator() {
        return allocator;
    }

    /**
     * Decodes one shard into arrays attached to {@code manager}.
     *
     * @param ipc the Arrow IPC stream bytes of a shard
     * @param manager the manager that will own the arrays' native memory
     * @return the arrays, owned by the caller
     */
    public ShardArrays openArrays(byte[] ipc, NDManager manager) {
        try {
            ShardArrays fast = IpcReader.tryRead(ipc, manager);
            if (fast != null) {
                return fast;
            }
        } catch (IOException | RuntimeException e) {
            // Not a plain shard stream: Arrow's reader below says precisely what is wrong.
        }
        return openWithArrow(ipc, manager);
    }

    private ShardArrays openWithArrow(byte[] ipc, NDManager manager) {
        List<NDArray> feats = new ArrayList<>();
        List<NDArray> labs = new ArrayList<>();
        try (ArrowStreamReader reader =
                new ArrowStreamReader(new ByteArrayReadableSeekableByteChannel(ipc), allocator)) {
            VectorSchemaRoot root = reader.getVectorSchemaRoot();
            FieldVector fv = root.getVector(ShardFormat.FEATURES);
            if (!(fv instanceof FixedSizeListVector)) {
                throw new DmlException(
                        "The Arrow stream has no FixedSizeList column '" + ShardFormat.FEATURES
                                + "'; its columns are " + root.getSchema().getFields() + ".",
                        "Encode tables with ArrowShards, or read other Arrow files with"
                                + " TableReaders and encode the table.");
            }
            int f = ((FixedSizeListVector) fv).getListSize();
            FieldVector lv = root.getVector(ShardFormat.LABEL);
            while (reader.loadNextBatch()) {
                int rows = root.getRowCount();
                FixedSizeListVector fsl = (FixedSizeListVector) fv;
                requireNoNulls(fsl, ShardFormat.FEATURES);
                FieldVector child = fsl.getDataVector();
                requireNoNulls(child, ShardFormat.FEATURES);
                feats.add(copy(child, new Shape(rows, f), DataType.FLOAT32, manager));
                if (lv != null) {
                    requireNoNulls(lv, ShardFormat.LABEL);
                    DataType want = isInteger(lv) ? DataType.INT32 : DataType.FLOAT32;
                    labs.add(copy(lv, new Shape(rows), want, manager));
                }
            }
            if (feats.isEmpty()) {
                feats.add(manager.create(new Shape(0, f), DataType.FLOAT32));
                if (lv != null) {
                    DataType want = isInteger(lv) ? DataType.INT32 : DataType.FLOAT32;
                    labs.add(manager.create(new Shape(0), want));
                }
            }
            String names = fv.getField().getMetadata().get(ShardFormat.FEATURE_NAMES);
            List<String> featureNames =
                    names == null || names.isEmpty() ? List.of() : Arrays.asList(names.split("\n"));
            return assemble(feats, labs, lv != null, featureNames,
                    root.getSchema().getCustomMetadata(), lv == null ? null : lv.getField());
        } catch (IOException e) {
            feats.forEach(NDArray::close);
            labs.forEach(NDArray::close);
            throw new DmlException(
                    "The shard is not a readable Arrow IPC stream: " + e.getMessage(),
                    "Pass the bytes made by ArrowShards (an IPC stream, not an IPC file).",
                    e);
        } catch (RuntimeException e) {
            feats.forEach(NDArray::close);
            labs.forEach(NDArray::close);
            throw e;
        }
    }

    private static NDArray copy(FieldVector v, Shape shape, DataType want, NDManager manager) {
        DataType have = dataTypeOf(v);
        long bytes = shape.size() * have.getNumOfBytes();
        if (bytes == 0) {
            return manager.create(shape, want);
        }
        ArrowBuf data = v.getDataBuffer();
        ByteBuffer view = data.nioBuffer(0, Math.toIntExact(bytes));
        try (NDArray alias = manager.create(view, shape, have)) {
            return have == want ? alias.duplicate() : alias.toType(want, true);
        }
    }

    private static DataType dataTypeOf(FieldVector v) {
        MinorType t = v.getMinorType();
        switch (t) {
            case FLOAT4:
                return DataType.FLOAT32;
            case FLOAT8:
                return DataType.FLOAT64;
            case INT:
                return DataType.INT32;
            case BIGINT:
                return DataType.INT64;
            default:
                throw new DmlException(
                        "Column '" + v.getName() + "' has Arrow type " + t + ", which a shard"
                                + " cannot hold.",
                        "Use float32/float64 features and int32/int64/float32/float64 labels.");
        }
    }

    private static boolean isInteger(FieldVector v) {
        MinorType t = v.getMinorType();
        return t == MinorType.INT || t == MinorType.BIGINT;
    }

    private static void requireNoNulls(FieldVector v, String column) {
        if (v.getNullCount() == 0) {
            return;
        }
        int row = 0;
        while (row < v.getValueCount() && !v.isNull(row)) {
            row++;
        }
        throw new DmlException(
                "Column '" + column + "' of the shard has a null at position " + row + ".",
                "Fill or drop the missing values before writing the stream.");
    }

    private static NDArray join(List<NDArray> parts) {
        if (parts.size() == 1) {
            return parts.get(0);
        }
        try (NDList list = new NDList(parts)) {
            return NDArrays.concat(list, 0);
        }
    }

    /** Joins per-batch arrays and reads the label kind and class count; owns the parts. */
    static ShardArrays assemble(List<NDArray> feats, List<NDArray> labs, boolean hasLabel,
            List<String> featureNames, Map<String, String> meta, Field labelField) {
        NDArray features = join(feats);
        NDArray labels = null;
        try {
            labels = hasLabel ? join(labs) : null;
            LabelKind kind = null;
            if (hasLabel) {
                String k = meta == null ? null : meta.get(ShardFormat.LABEL_KIND);
                kind = k != null ? LabelKind.valueOf(k)
                        : labelField.getType() instanceof ArrowType.Int
                                ? LabelKind.CLASSES : LabelKind.REGRESSION;
            }
            int classes = kind == LabelKind.CLASSES ? classCount(meta, labels) : 0;
            return new ShardArrays(features, labels, featureNames, kind, classes);
        } catch (RuntimeException e) {
            TableArrays.closeQuietly(e, features, labels);
            throw e;
        }
    }

    private static int classCount(Map<String, String> meta, NDArray labels) {
        String c = meta == null ? null : meta.get(ShardFormat.CLASS_COUNT);
        if (c != null) {
            return Integer.parseInt(c);
        }
        if (labels.size() == 0) {
            return 0;
        }
        try (NDArray max = labels.max();
                NDArray asInt = max.toType(DataType.INT32, true)) {
            return asInt.getInt() + 1;
        }
    }

    @Override
    public void close() {
        allocator.close();
    }
}

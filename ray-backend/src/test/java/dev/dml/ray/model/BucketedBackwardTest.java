package dev.dml.ray.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The backward in buckets gives the gradients of one backward, bucket by bucket as the layers
 * finish, last layers first.
 */
class BucketedBackwardTest {

    private NDManager manager;

    @BeforeEach
    void setUp() {
        manager = NDManager.newBaseManager("PyTorch");
    }

    @AfterEach
    void tearDown() {
        manager.close();
    }

    private NDArray gaussian(long seed, Shape shape) {
        Random r = new Random(seed);
        float[] v = new float[(int) shape.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return manager.create(v, shape);
    }

    private NDArray classes(int rows, int k) {
        Random r = new Random(12);
        int[] v = new int[rows];
        for (int i = 0; i < rows; i++) {
            v[i] = r.nextInt(k);
        }
        return manager.create(v);
    }

    /** Runs one batch both ways on two replicas; returns the buckets in the order handed. */
    private List<Integer> assertBucketsEqualWhole(ModelSpec spec, NDArray x, long bucketFloats,
            int expectedBuckets) {
        NDArray y = classes((int) x.getShape().get(0), 10);
        try (ModelStage whole = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0f), "w");
                ModelStage cut = ModelStage.openWhole(spec, OptimizerSpec.sgd(0.1f, 0f), "c")) {
            float lossWhole = whole.trainBatch(x, y);
            BucketedBackward b = BucketedBackward.of(cut, bucketFloats);
            assertEquals(expectedBuckets, b.buckets());
            float[] got = new float[cut.parameterCount()];
            List<Integer> order = new ArrayList<>();
            float lossCut = b.trainBatch(x, y, (bucket, grads) -> {
                order.add(bucket);
                assertEquals(b.offset(bucket + 1) - b.offset(bucket) + 1, grads.length);
                System.arraycopy(grads, 0, got, b.offset(bucket), grads.length - 1);
            });
            assertEquals(lossWhole, lossCut, 0f, "the same forward");
            assertEquals(cut.parameterCount(), b.offset(b.buckets()));
            float[] expected = whole.gradients();
            assertArrayEquals(expected, got, 1e-6f, "gradients handed out");
            assertArrayEquals(expected, cut.gradients(), 1e-6f, "gradients left in the model");
            return order;
        }
    }

    @Test
    void mlpBucketsFromTheOutputBackGiveTheWholeBackwardsGradients() {
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.MLP).setInputs(20).setOutputs(10)
                .addHidden(32).addHidden(16).optSeed(4).build();
        NDArray x = gaussian(11, new Shape(24, 20));
        // layers hold 672, 528 and 170 parameters: cut into buckets of at least 100 from the
        // output back, each layer is a bucket; of 600, the last two make one
        assertEquals(List.of(2, 1, 0), assertBucketsEqualWhole(spec, x, 100, 3));
        assertEquals(List.of(1, 0), assertBucketsEqualWhole(spec, x, 600, 2));
        assertEquals(List.of(0), assertBucketsEqualWhole(spec, x, 1_000_000, 1));
    }

    @Test
    void cnnBucketsGiveTheWholeBackwardsGradients() {
        ModelSpec spec = ModelSpec.builder(ModelSpec.Family.CNN).setOutputs(10)
                .optConvChannels(4, 8).addHidden(16).build();
        NDArray x = gaussian(13, new Shape(6, 784));
        List<Integer> order = assertBucketsEqualWhole(spec, x, 1, spec.layerCount());
        assertEquals(spec.layerCount() - 1, order.get(0));
        assertEquals(0, order.get(order.size() - 1));
    }
}

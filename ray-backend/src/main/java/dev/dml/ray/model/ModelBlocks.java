package dev.dml.ray.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.NDList;
import ai.djl.ndarray.NDManager;
import ai.djl.ndarray.types.Shape;
import ai.djl.nn.Activation;
import ai.djl.nn.Block;
import ai.djl.nn.Blocks;
import ai.djl.nn.LambdaBlock;
import ai.djl.nn.SequentialBlock;
import ai.djl.nn.convolutional.Conv2d;
import ai.djl.nn.core.Linear;
import ai.djl.nn.pooling.Pool;

/** Builds the DJL block of a {@link ModelSpec}. */
final class ModelBlocks {

    private ModelBlocks() {}

    static Block build(ModelSpec spec) {
        SequentialBlock net = new SequentialBlock();
        if (spec.standardize() != null) {
            float[] mean = spec.standardize().means();
            float[] std = spec.standardize().stds();
            net.add(new LambdaBlock(list -> {
                NDArray x = list.singletonOrThrow();
                NDManager m = x.getManager();
                return new NDList(x.sub(m.create(mean)).div(m.create(std)));
            }, "standardize"));
        }
        if (spec.family() == ModelSpec.Family.CUSTOM) {
            net.add(spec.block().factory().newBlock(spec.inputs(), spec.outputs()));
            return net;
        }
        if (spec.family() == ModelSpec.Family.MF) {
            net.add(new MatrixFactorization(spec.embeddings(), spec.offset(), spec.outputs()));
            return net;
        }
        if (!spec.embeddings().isEmpty()) {
            net.add(new EmbeddingBlock(spec.embeddings()));
        }
        if (spec.family() == ModelSpec.Family.CNN) {
            int[] image = spec.image();
            long c = image[0];
            long h = image[1];
            long w = image[2];
            // a row holds its pixels channel-last (HxWxC); convolutions take [B, C, H, W];
            // one block per layer of ModelLayout
            if (c == 1) {
                net.add(new LambdaBlock(
                        x -> new NDList(x.singletonOrThrow().reshape(-1, 1, h, w)), "image"));
            } else {
                net.add(new LambdaBlock(
                        x -> new NDList(x.singletonOrThrow().reshape(-1, h, w, c)), "image"));
                net.add(new LambdaBlock(x -> new NDList(x.singletonOrThrow()
                        .transpose(0, 3, 1, 2)), "channels-first"));
            }
            int[] channels = spec.convChannels();
            boolean[] pools = ModelLayout.pools(spec);
            for (int i = 0; i < channels.length; i++) {
                net.add(Conv2d.builder()
                        .setKernelShape(new Shape(ModelLayout.CONV_KERNEL[0],
                                ModelLayout.CONV_KERNEL[1]))
                        .optPadding(new Shape(ModelLayout.CONV_PADDING[0],
                                ModelLayout.CONV_PADDING[1]))
                        .setFilters(channels[i])
                        .build());
                net.add(Activation.reluBlock());
                if (pools[i]) {
                    Shape pool = new Shape(ModelLayout.POOL[0], ModelLayout.POOL[1]);
                    net.add(Pool.maxPool2dBlock(pool, pool));
                }
            }
            net.add(Blocks.batchFlattenBlock());
        }
        if (spec.family() != ModelSpec.Family.LOGISTIC_REGRESSION) {
            for (int units : spec.hidden()) {
                net.add(Linear.builder().setUnits(units).build());
                net.add(Activation.reluBlock());
            }
        }
        net.add(Linear.builder().setUnits(spec.outputs()).build());
        return net;
    }
}

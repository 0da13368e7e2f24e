package dev.dml.ray.model;

import ai.djl.nn.Block;
import java.io.Serializable;

/**
 * A user's own model for {@code %dml train --block VAR} or {@code TrainSpec.builder()
 * .setBlock(factory)}: every worker calls {@link #newBlock} to build its replica.
 *
 * <p>The factory, not a block, crosses Ray: DJL blocks are not serializable, and each worker
 * needs a block of its own anyway. Keep only sizes and settings in its fields and build the
 * layers inside {@link #newBlock}. The class may be defined in a notebook cell (dml sends the
 * cells' classes with the job) or come from dml's class path.
 *
 * <pre>{@code
 * class Net implements BlockFactory {
 *     public Block newBlock(int inputs, int outputs) {
 *         return new SequentialBlock()
 *                 .add(Linear.builder().setUnits(32).build()).add(Activation::relu)
 *                 .add(Linear.builder().setUnits(outputs).build());
 *     }
 * }
 * var net = new Net();
 * }</pre>
 *
 * <p>The block takes the standardised features {@code [B, inputs]} and returns the scores
 * {@code [B, outputs]}: one per class (softmax cross-entropy), or one for a regression. dml
 * initialises its weights itself, from the job's seed (He-uniform weights, zero biases), so
 * that every worker starts from the same parameters.
 */
@FunctionalInterface
public interface BlockFactory extends Serializable {

    /**
     * Builds a new, uninitialised block.
     *
     * @param inputs the width of a row of features
     * @param outputs the scores the block must return per row
     * @return the block
     */
    Block newBlock(int inputs, int outputs);
}

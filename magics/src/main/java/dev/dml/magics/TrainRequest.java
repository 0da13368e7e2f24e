package dev.dml.magics;

import dev.dml.DmlException;
import java.util.List;

/**
 * What a {@code %dml train} cell asks for, parsed and checked for form (numbers are numbers,
 * choices are known). A null field means "not given": the backend applies its default. Values
 * are checked against the data (columns, cluster capacity) by the backend.
 *
 * @param source the input: a notebook variable holding a table, or a CSV / Arrow IPC file path
 * @param model the model family: {@code mlp}, {@code logistic} or {@code cnn}
 * @param hidden the hidden layer sizes of an MLP
 * @param label the column to predict
 * @param features the feature columns; null means every numeric column but the label
 * @param workers the number of worker actors
 * @param cpusPerWorker the CPUs each worker reserves
 * @param gpusPerWorker the GPUs each worker reserves
 * @param epochs the passes over the training rows
 * @param batchSize the rows per worker per step
 * @param learningRate the optimizer's learning rate
 * @param optimizer {@code sgd} or {@code adam}
 * @param strategy {@code data}, {@code model}, {@code pipeline} or {@code hybrid}
 * @param stages a model, pipeline or hybrid job's stages: one count, or layers per stage
 * @param balance how an automatic split balances stages: {@code params} or {@code time}
 * @param microbatches the micro-batches per step of a pipeline or hybrid job
 * @param replicas the data-parallel replicas of a hybrid job
 * @param schedule the pipeline schedule: {@code gpipe} or {@code 1f1b}
 * @param validation a fraction of the rows to hold out, or a variable holding a table
 * @param cluster a cluster address; null means the session's cluster (embedded by default)
 * @param checkpointDir where checkpoints go
 * @param checkpointEvery steps between checkpoints
 * @param resume continue from the newest checkpoint in {@code checkpointDir}
 * @param seed the seed of the model's initial weights and of the validation split
 * @param into the notebook variable the result is bound to
 * @param background return as soon as the job runs, instead of waiting for its end
 * @param plots draw the live plots
 * @param debug show stack traces with errors
 */
public record TrainRequest(String source, String model, List<Integer> hidden, String label,
        List<String> features, Integer workers, Double cpusPerWorker, Double gpusPerWorker,
        Integer epochs, Integer batchSize, Double learningRate, String optimizer,
        String strategy, List<Integer> stages, String balance, Integer microbatches,
        Integer replicas, String schedule, String validation, String cluster, String checkpointDir,
        Integer checkpointEvery, boolean resume, Long seed, String into, boolean background,
        boolean plots, boolean debug) {

    /**
     * Parses a request as {@code %dml train} does: its words, and for the cell form its body.
     *
     * @param args the words after {@code train}, e.g. {@code ["fraud", "--label", "is_fraud"]}
     * @param body the {@code key: value} lines of a {@code %%dml train} cell, or null
     * @return the request
     * @throws DmlException naming the first bad option and how to write it
     */
    public static TrainRequest parse(List<String> args, String body) {
        return TrainGrammar.parse(args, body);
    }

    /** Lists stay immutable; the rest is plain data. */
    public TrainRequest {
        hidden = hidden == null ? null : List.copyOf(hidden);
        features = features == null ? null : List.copyOf(features);
        stages = stages == null ? null : List.copyOf(stages);
    }
}

package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import java.util.List;
import java.util.Objects;

/**
 * What a {@code %dml train} cell asks for, parsed and checked for form by the options'
 * declarations ({@link TrainOptions}): the data, and the options given. An option not given
 * reads as its declared default. Values are checked against the data (columns, cluster
 * capacity) by the backend.
 *
 * @param source the input: a notebook variable holding a table, or a CSV / Arrow IPC file
 *     path; null with {@code --plan}, whose job names it
 * @param options the options given in the cell
 */
public record TrainRequest(String source, OptionValues options) implements CellRequest {

    /** A request always has its data and its options. */
    public TrainRequest {
        Objects.requireNonNull(options, "options");
        if (!options.isSet(TrainOptions.PLAN)) {
            Objects.requireNonNull(source, "source"); // with --plan, the plan's job has one
        }
    }

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

    /**
     * Returns the notebook variable the result is bound to.
     *
     * @return the name, or null
     */
    public String into() {
        return get(TrainOptions.INTO);
    }

    /**
     * Tells whether the cell returns as soon as the job runs.
     *
     * @return {@code true} with {@code --background}
     */
    public boolean background() {
        return get(TrainOptions.BACKGROUND);
    }

    /**
     * Tells whether the cell draws live plots.
     *
     * @return {@code false} with {@code --no-plots}
     */
    public boolean plots() {
        return !get(TrainOptions.NO_PLOTS);
    }
}

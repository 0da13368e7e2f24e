package dev.dml.magics;

import dev.dml.options.OptionValues;
import dev.dml.options.PredictOptions;
import java.util.List;
import java.util.Objects;

/**
 * What a {@code %dml predict} cell asks for, parsed and checked for form by the options'
 * declarations ({@link PredictOptions}): the model, the data, and the options given. The
 * backend checks them against the notebook (is the model a trained model, has the table its
 * columns).
 *
 * @param model the notebook variable holding the trained model
 * @param source the data: a notebook variable holding a table, or a file as {@code %dml train}
 *     reads it
 * @param options the options given in the cell
 */
public record PredictRequest(String model, String source, OptionValues options)
        implements CellRequest {

    /** A request always has its model, its data and its options. */
    public PredictRequest {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(options, "options");
    }

    /**
     * Parses a request as {@code %dml predict} does.
     *
     * @param args the words after {@code predict}, e.g. {@code ["model", "test", "--workers",
     *     "2"]}
     * @param body the {@code key: value} lines of a {@code %%dml predict} cell, or null
     * @return the request
     * @throws dev.dml.DmlException naming what is missing or the first bad option
     */
    public static PredictRequest parse(List<String> args, String body) {
        return PredictCommand.parse(args, body);
    }

    /**
     * Returns the notebook variable the scored table is bound to.
     *
     * @return the name ({@code scored} unless {@code --into} says otherwise)
     */
    public String into() {
        return get(PredictOptions.INTO);
    }
}

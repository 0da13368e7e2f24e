package dev.dml.magics;

import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;

/**
 * What every parsed {@code %dml} request shares: the options given in the cell, read with their
 * defaults, and the two options every job command takes ({@code --debug}, {@code --cluster}).
 */
public interface CellRequest {

    /**
     * Returns the options given in the cell.
     *
     * @return the options
     */
    OptionValues options();

    /**
     * Returns an option's value: the one given, else its default.
     *
     * @param option the option
     * @param <T> its type
     * @return the value, or null when none was given and it has no default
     */
    default <T> T get(Option<T> option) {
        return options().get(option);
    }

    /**
     * Tells whether errors show their stack traces.
     *
     * @return {@code true} with {@code --debug}
     */
    default boolean debug() {
        return get(TrainOptions.DEBUG);
    }

    /**
     * Returns the cluster the job runs on.
     *
     * @return {@code host:port}, or null for the session's cluster
     */
    default String cluster() {
        return get(TrainOptions.CLUSTER);
    }
}

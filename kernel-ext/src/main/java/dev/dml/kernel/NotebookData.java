package dev.dml.kernel;

import dev.dml.DmlException;
import dev.dml.ray.data.TableReaders;
import dev.dml.ray.train.TrainResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.memory.RootAllocator;
import tech.tablesaw.api.Table;

/**
 * Where {@code %dml train} finds its tables: a notebook variable, or else a CSV, Arrow IPC or Parquet
 * file. Errors name the variables there are.
 */
final class NotebookData {

    private static final String FILE_HINT = "Define the table in an earlier cell, or give a"
            + " .csv, .arrow or .parquet file path.";

    private final Function<String, Optional<Object>> variables;
    private final Supplier<List<String>> names;

    NotebookData(Function<String, Optional<Object>> variables,
            Supplier<List<String>> names) {
        this.variables = variables;
        this.names = names;
    }

    /** A workspace with no variables: a kernel other than dml's; files still work. */
    static NotebookData filesOnly() {
        return new NotebookData(name -> Optional.empty(), List::of);
    }

    /**
     * Returns the table a name stands for.
     *
     * @param source a variable holding a Tablesaw table, or a file path
     * @param what how the error calls it, e.g. "the data" or "--validation"
     * @return the table
     */
    Table table(String source, String what) {
        Optional<Object> value = variables.apply(source);
        if (value.isPresent()) {
            if (value.get() instanceof Table table) {
                return table;
            }
            throw new DmlException("The variable '" + source + "' given as " + what + " is a "
                    + value.get().getClass().getSimpleName() + ", not a Tablesaw Table.",
                    "Pass a tech.tablesaw.api.Table variable, or a .csv, .arrow or .parquet file path.");
        }
        Path path = Path.of(source);
        if (Files.isRegularFile(path)) {
            try (RootAllocator allocator = new RootAllocator()) {
                return TableReaders.read(path, allocator);
            }
        }
        throw new DmlException("There is no variable or file '" + source + "' for " + what
                + ".", hint(source));
    }

    /**
     * Returns the trained model a name stands for.
     *
     * @param name a variable holding a {@link TrainResult}, or a folder {@code model.save}
     *     wrote
     * @return the model
     */
    TrainResult model(String name) {
        Optional<Object> value = variables.apply(name);
        if (value.isPresent()) {
            if (value.get() instanceof TrainResult model) {
                return model;
            }
            throw new DmlException("The variable '" + name + "' given as the model is a "
                    + value.get().getClass().getSimpleName() + ", not a trained model"
                    + " (TrainResult).", "Pass the --into of a finished %dml train, or"
                    + " TrainResult.open(dir) of a saved one.");
        }
        Path path = Path.of(name);
        if (Files.isDirectory(path)) {
            return TrainResult.open(path);
        }
        throw new DmlException("There is no variable or model folder '" + name + "' for the"
                + " model.", hint(name).replace(FILE_HINT, "Train one with %dml train ... --into "
                        + name + ", or give a folder model.save(dir) wrote."));
    }

    private String hint(String source) {
        List<String> known = names.get();
        String guess = dev.dml.magics.Suggestions.closest(source, known)
                .map(g -> "Did you mean '" + g + "'? ").orElse("");
        String list = known.isEmpty() ? "This notebook has no variables yet"
                : "Variables: " + String.join(", ", known.size() > 12 ? known.subList(0, 12)
                        : known);
        return guess + list + ". " + FILE_HINT;
    }
}

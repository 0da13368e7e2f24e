package dev.dml.kernel.backend;

import dev.dml.DmlException;
import dev.dml.Suggestions;
import dev.dml.ray.data.TableReaders;
import dev.dml.ray.data.store.DataStore;
import dev.dml.ray.model.BlockFactory;
import dev.dml.ray.model.UserBlock;
import dev.dml.ray.train.result.TrainResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.memory.RootAllocator;
import tech.tablesaw.api.Table;

/**
 * Where {@code %dml train} finds its tables: a notebook variable, or else a CSV, Arrow IPC or
 * Parquet file. Errors name the variables there are.
 */
final class NotebookData {

    private static final String FILE_HINT = "Define the table in an earlier cell, or give a"
            + " .csv, .arrow or .parquet file path.";

    private final Function<String, Optional<Object>> variables;
    private final Supplier<List<String>> names;
    private final Supplier<Map<String, byte[]>> userClasses;

    NotebookData(Function<String, Optional<Object>> variables,
            Supplier<List<String>> names, Supplier<Map<String, byte[]>> userClasses) {
        this.variables = variables;
        this.names = names;
        this.userClasses = userClasses;
    }

    /** A workspace with no variables: a kernel other than dml's; files still work. */
    static NotebookData filesOnly() {
        return new NotebookData(name -> Optional.empty(), List::of, Map::of);
    }

    /** How errors call the table a {@code %dml} command trains or predicts on. */
    static final String DATA = "the data";

    /**
     * Returns the table a name stands for.
     *
     * @param source a variable holding a Tablesaw table, or a file path
     * @param what how the error calls it, e.g. "the data" or "--validation"
     * @return the table
     */
    Table table(String source, String what) {
        return table(source, what, null);
    }

    /**
     * Returns the table a name stands for.
     *
     * @param source a variable holding a Tablesaw table, a file path, or an {@code s3://} URL
     *     of one object
     * @param what how the error calls it, e.g. "the data" or "--validation"
     * @param s3Endpoint the S3-compatible store of an {@code s3://} URL ({@code
     *     --s3-endpoint}), or null
     * @return the table
     */
    Table table(String source, String what, String s3Endpoint) {
        if (DataStore.isS3(source)) {
            try (RootAllocator allocator = new RootAllocator()) {
                return TableReaders.read(source, s3Endpoint, allocator);
            }
        }
        Optional<Object> value = variables.apply(source);
        if (value.isPresent()) {
            if (value.get() instanceof Table table) {
                return table;
            }
            throw new DmlException("The variable '" + source + "' given as " + what + " is a "
                    + value.get().getClass().getSimpleName() + ", not a Tablesaw Table.",
                    "Pass a tech.tablesaw.api.Table variable, or a .csv, .arrow or .parquet file"
                            + " path.");
        }
        Path path = Path.of(source);
        if (Files.isRegularFile(path)) {
            try (RootAllocator allocator = new RootAllocator()) {
                return TableReaders.read(path, allocator);
            }
        }
        if (Files.isDirectory(path)) {
            throw new DmlException("'" + DmlException.literal(source) + "', given as " + what
                    + ", is a folder; the kernel reads one file.", "Name one of its files"
                    + (what.equals(DATA) ? ", or add {read-on-workers} to have the workers read"
                    + " the folder's Parquet and Arrow files." : "."));
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

    /**
     * Returns the block factory a variable holds, captured to cross Ray: with the cells'
     * classes when a cell defined its class.
     *
     * @param name the variable of {@code --block}
     * @return the captured factory
     */
    UserBlock block(String name) {
        Object value = variables.apply(name).orElseThrow(() -> new DmlException("There is no"
                + " variable '" + name + "' for --block.", hint(name).replace("Define the table"
                + " in an earlier cell, or give a .csv or .arrow file path.", "Define it in an"
                + " earlier cell: var " + name + " = new MyNet(); with class MyNet implements"
                + " BlockFactory.")));
        if (!(value instanceof BlockFactory factory)) {
            throw new DmlException("The variable '" + name + "' given as --block is a "
                    + value.getClass().getSimpleName() + ", not a dev.dml.ray.model"
                    + ".BlockFactory.", value instanceof ai.djl.nn.Block ? "A block cannot"
                    + " cross to the workers; write a class implementing BlockFactory whose"
                    + " newBlock(inputs, outputs) builds it, and pass an instance."
                    : "Pass an instance of a class implementing BlockFactory.");
        }
        Class<?> c = factory.getClass();
        if (c.getClassLoader() == BlockFactory.class.getClassLoader()) {
            return UserBlock.of(name, factory, Map.of()); // on the workers' class path too
        }
        Map<String, byte[]> classes = userClasses.get();
        if (!classes.containsKey(c.getName())) {
            throw new DmlException("The class " + c.getName() + " of '" + name + "' comes"
                    + " from neither a notebook cell nor a jar added with %jars or %maven, so"
                    + " the workers cannot load it.", "Define the class in a notebook cell, or"
                    + " add its jar with %jars: dml sends those classes with the job.");
        }
        return UserBlock.of(name, factory, classes);
    }

    private String hint(String source) {
        List<String> known = names.get();
        String guess = Suggestions.didYouMean(source, known);
        String list = known.isEmpty() ? "This notebook has no variables yet"
                : "Variables: " + String.join(", ", known.size() > 12 ? known.subList(0, 12)
                        : known);
        return guess + list + ". " + FILE_HINT;
    }
}

package dev.dml.magics;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.dflib.jjava.jupyter.kernel.magic.MagicArgsParseException;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/**
 * The grammar of {@code %dml train}: a line form ({@code %dml train fraud --epochs 3}) and a cell
 * form whose body holds one {@code key: value} per line. Both go through one {@link MagicsArgs}
 * schema, so they accept the same options with the same checks.
 */
final class TrainGrammar {

    /** How an option's value is read. */
    enum Kind { TEXT, COUNT, NUMBER, FRACTION_OR_NAME, CHOICE, COUNTS, NAMES, SEED, SWITCH }

    /** One {@code --name value} option, documented for {@code %dml help train}. */
    record Option(String name, Kind kind, String value, String help, List<String> choices) {
        String usage() {
            return kind == Kind.SWITCH ? "--" + name : "--" + name + " " + value;
        }
    }

    static final String SOURCE = "source";
    private static final Pattern BODY_LINE = Pattern.compile("\\s*([A-Za-z][\\w-]*)\\s*[:=]\\s*(.*)");
    private static final Pattern UNKNOWN_KEYWORD = Pattern.compile("Unknown keyword argument '(.+)'.*");
    private static final List<String> SOURCE_KEYS = List.of("table", "data", SOURCE);

    static final List<Option> OPTIONS = List.of(
            new Option("label", Kind.TEXT, "COLUMN", "the column to predict (required)", null),
            new Option("features", Kind.NAMES, "A,B,...",
                    "feature columns (default: every numeric column but the label)", null),
            new Option("model", Kind.CHOICE, "mlp|logistic|cnn", "model family (default mlp)",
                    List.of("mlp", "logistic", "cnn")),
            new Option("hidden", Kind.COUNTS, "64,32", "hidden layer sizes of an mlp", null),
            new Option("epochs", Kind.COUNT, "N", "passes over the data (default 1)", null),
            new Option("batch-size", Kind.COUNT, "B", "rows per worker per step", null),
            new Option("lr", Kind.NUMBER, "RATE", "learning rate", null),
            new Option("optimizer", Kind.CHOICE, "sgd|adam", "optimizer (default sgd)",
                    List.of("sgd", "adam")),
            new Option("workers", Kind.COUNT, "N", "worker actors (default 1)", null),
            new Option("cpus-per-worker", Kind.NUMBER, "C", "CPUs each worker reserves", null),
            new Option("gpus-per-worker", Kind.NUMBER, "G", "GPUs each worker reserves", null),
            new Option("strategy", Kind.CHOICE, "data|model|pipeline|hybrid",
                    "how the work is split (default data)",
                    List.of("data", "model", "pipeline", "hybrid")),
            new Option("stages", Kind.COUNTS, "K|2,1,...",
                    "stages (model, pipeline, hybrid): a count, or layers per stage", null),
            new Option("balance", Kind.CHOICE, "params|time",
                    "split stages by parameter count or measured time (default params)",
                    List.of("params", "time")),
            new Option("microbatches", Kind.COUNT, "M", "micro-batches per step (pipeline)",
                    null),
            new Option("replicas", Kind.COUNT, "D", "pipeline replicas (hybrid)", null),
            new Option("schedule", Kind.CHOICE, "gpipe|1f1b", "pipeline schedule",
                    List.of("gpipe", "1f1b")),
            new Option("validation", Kind.FRACTION_OR_NAME, "0.2|TABLE",
                    "hold out a fraction of the rows, or validate on a table variable", null),
            new Option("cluster", Kind.TEXT, "HOST:PORT",
                    "a Ray cluster (default: this session's, embedded on this machine)", null),
            new Option("checkpoint-dir", Kind.TEXT, "DIR", "write checkpoints here", null),
            new Option("checkpoint-every", Kind.COUNT, "STEPS", "steps between checkpoints",
                    null),
            new Option("resume", Kind.SWITCH, "", "continue from the newest checkpoint", null),
            new Option("seed", Kind.SEED, "S", "seed of the initial weights and the split",
                    null),
            new Option("into", Kind.TEXT, "NAME", "bind the result to this variable", null),
            new Option("background", Kind.SWITCH, "",
                    "return once the job runs (see %dml status, %dml stop)", null),
            new Option("no-plots", Kind.SWITCH, "", "do not draw live plots", null),
            new Option("debug", Kind.SWITCH, "", "show stack traces with errors", null));

    private static final MagicsArgs SCHEMA = schema();

    private TrainGrammar() {}

    private static MagicsArgs schema() {
        MagicsArgs.MagicsArgsBuilder b = MagicsArgs.builder().optional(SOURCE)
                .onlyKnownKeywords().onlyKnownFlags();
        for (Option o : OPTIONS) {
            b.keyword(o.name(), MagicsArgs.KeywordSpec.ONCE);
        }
        return b.build();
    }

    /** The usage line of {@code %dml train}. */
    static String usage() {
        StringBuilder s = new StringBuilder("%dml train TABLE|FILE --label COLUMN");
        for (Option o : OPTIONS) {
            if (!o.name().equals("label")) {
                s.append(" [").append(o.usage()).append(']');
            }
        }
        return s.toString();
    }

    /**
     * Parses the words after {@code train} and, for the cell form, the body.
     *
     * @param args the line's words
     * @param body the cell body, or null for the line form
     * @return the request
     * @throws DmlException naming the first bad option and how to write it
     */
    static TrainRequest parse(List<String> args, String body) {
        List<String> words = new ArrayList<>(args);
        if (body != null) {
            words.addAll(bodyWords(body));
        }
        Map<String, List<String>> raw;
        try {
            raw = SCHEMA.parse(normalizeSwitches(words));
        } catch (MagicArgsParseException e) {
            throw parseError(e.getMessage());
        }
        Values v = new Values(raw);
        String source = v.first(SOURCE);
        if (source == null) {
            throw new DmlException("%dml train needs its data: a table variable or a file.",
                    "Example: %dml train fraud --label is_fraud   (or 'table: fraud' in a"
                            + " %%dml train cell).");
        }
        String label = v.text("label");
        if (label == null) {
            throw new DmlException("%dml train needs --label: the column to predict.",
                    "Example: %dml train " + source + " --label is_fraud");
        }
        return new TrainRequest(source, v.text("model"), v.counts("hidden"), label,
                v.names("features"), v.count("workers"), v.number("cpus-per-worker"),
                v.number("gpus-per-worker"), v.count("epochs"), v.count("batch-size"),
                v.number("lr"), v.text("optimizer"), v.text("strategy"), v.counts("stages"), v.text("balance"),
                v.count("microbatches"), v.count("replicas"), v.text("schedule"),
                v.text("validation"), v.text("cluster"), v.text("checkpoint-dir"),
                v.count("checkpoint-every"), v.on("resume"), v.seed("seed"), v.name("into"),
                v.on("background"), !v.on("no-plots"), v.on("debug"));
    }

    /** {@code key: value} lines become {@code --key=value} words; {@code table: x} the source. */
    private static List<String> bodyWords(String body) {
        List<String> words = new ArrayList<>();
        String[] lines = body.split("\\R");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("//")) {
                continue;
            }
            Matcher m = BODY_LINE.matcher(line);
            if (!m.matches()) {
                throw new DmlException("%%dml train: line " + (i + 1) + " '" + line
                        + "' is not 'key: value'.", "Write one option per line, e.g."
                        + " 'epochs: 3'; %dml help train lists the keys.");
            }
            String key = m.group(1).toLowerCase(Locale.ROOT).replace('_', '-');
            String value = m.group(2).strip();
            if (SOURCE_KEYS.contains(key)) {
                words.add(value);
            } else if (option(key).map(o -> o.kind() == Kind.SWITCH).orElse(false)) {
                words.add("--" + key + "=" + value.toLowerCase(Locale.ROOT));
            } else {
                words.add("--" + key + "=" + value.replaceAll("\\s*,\\s*", ","));
            }
        }
        return words;
    }

    /** A bare {@code --debug} would swallow the next word as its value: give it one. */
    private static List<String> normalizeSwitches(List<String> words) {
        List<String> out = new ArrayList<>(words.size());
        for (String w : words) {
            boolean isSwitch = w.startsWith("--") && !w.contains("=")
                    && option(w.substring(2)).map(o -> o.kind() == Kind.SWITCH).orElse(false);
            out.add(isSwitch ? w + "=true" : w);
        }
        return out;
    }

    static Optional<Option> option(String name) {
        return OPTIONS.stream().filter(o -> o.name().equals(name)).findFirst();
    }

    private static DmlException parseError(String message) {
        Matcher m = UNKNOWN_KEYWORD.matcher(message);
        if (m.matches()) {
            String name = m.group(1);
            String guess = Suggestions.closest(name, OPTIONS.stream().map(Option::name)
                    .toList()).map(g -> "Did you mean --" + g + "? ").orElse("");
            return new DmlException("%dml train: unknown option --" + name + ".",
                    guess + "%dml help train lists the options.");
        }
        return new DmlException("%dml train: " + message, "Usage: " + usage());
    }

    /** The parsed words, read and checked by kind. */
    private static final class Values {
        private final Map<String, List<String>> raw;

        Values(Map<String, List<String>> raw) {
            this.raw = new LinkedHashMap<>(raw);
        }

        String first(String key) {
            List<String> values = raw.get(key);
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        String text(String name) {
            String value = first(name);
            if (value == null) {
                return null;
            }
            Option o = option(name).orElseThrow();
            if (value.isBlank()) {
                throw bad(o, value, "a value");
            }
            if (o.kind() == Kind.CHOICE && !o.choices().contains(value.toLowerCase(Locale.ROOT))) {
                throw bad(o, value, "one of " + String.join(", ", o.choices()));
            }
            return o.kind() == Kind.CHOICE ? value.toLowerCase(Locale.ROOT) : value;
        }

        String name(String option) {
            String value = text(option);
            if (value != null && !value.matches("[A-Za-z_$][\\w$]*")) {
                throw bad(option(option).orElseThrow(), value, "a Java variable name");
            }
            return value;
        }

        Integer count(String name) {
            String value = text(name);
            if (value == null) {
                return null;
            }
            try {
                int n = Integer.parseInt(value);
                if (n >= 1) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw bad(option(name).orElseThrow(), value, "a whole number of at least 1");
        }

        Long seed(String name) {
            String value = text(name);
            if (value == null) {
                return null;
            }
            try {
                return Long.parseLong(value);
            } catch (NumberFormatException e) {
                throw bad(option(name).orElseThrow(), value, "a whole number");
            }
        }

        Double number(String name) {
            String value = text(name);
            if (value == null) {
                return null;
            }
            try {
                double d = Double.parseDouble(value);
                if (d >= 0 && Double.isFinite(d)) {
                    return d;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw bad(option(name).orElseThrow(), value, "a number of at least 0");
        }

        List<Integer> counts(String name) {
            String value = text(name);
            if (value == null) {
                return null;
            }
            List<Integer> sizes = new ArrayList<>();
            for (String part : value.split(",")) {
                try {
                    int n = Integer.parseInt(part.strip());
                    if (n >= 1) {
                        sizes.add(n);
                        continue;
                    }
                } catch (NumberFormatException e) {
                    // reported below
                }
                throw bad(option(name).orElseThrow(), value, "sizes of at least 1, like 64,32");
            }
            return sizes;
        }

        List<String> names(String name) {
            String value = text(name);
            if (value == null) {
                return null;
            }
            List<String> names = new ArrayList<>();
            for (String part : value.split(",")) {
                if (part.isBlank()) {
                    throw bad(option(name).orElseThrow(), value, "column names, like a,b,c");
                }
                names.add(part.strip());
            }
            return names;
        }

        boolean on(String name) {
            String value = first(name);
            if (value == null) {
                return false;
            }
            if (value.equals("true") || value.equals("yes")) {
                return true;
            }
            if (value.equals("false") || value.equals("no")) {
                return false;
            }
            throw bad(option(name).orElseThrow(), value, "true or false");
        }

        private static DmlException bad(Option o, String value, String expected) {
            return new DmlException("%dml train: --" + o.name() + " must be " + expected
                    + ", got '" + value + "'.", "Write it as " + o.usage() + " (" + o.help()
                    + ").");
        }
    }
}

package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.Suggestions;
import dev.dml.Vocabulary;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.PlanOptions;
import dev.dml.options.PredictOptions;
import dev.dml.options.ScaleOptions;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.dflib.jjava.jupyter.kernel.magic.MagicArgsParseException;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/**
 * The grammar of {@code %dml train} (and of plan, scale and predict): a line form ({@code %dml
 * train fraud --epochs 3}) and a cell form whose body holds one {@code key: value} per line.
 * Both go through one {@link MagicsArgs} schema built from the option declarations ({@link
 * TrainOptions}), so they accept the same options with the same checks, and the help lists each
 * option with its real default. Words that are no option fill the command's positional slots
 * (train's data; predict's model and data), which the body names by key.
 */
final class TrainGrammar {

    static final String SOURCE = "source";
    static final String MODEL = "model";
    private static final Pattern BODY_LINE = Pattern
            .compile("\\s*([A-Za-z][\\w-]*)\\s*[:=]\\s*(.*)");
    private static final Pattern UNKNOWN_KEYWORD = Pattern
            .compile("Unknown keyword argument '(.+)'.*");
    /** Body keys that name train's data. */
    private static final Map<String, String> SOURCE_KEYS = Map.of("table", SOURCE, "data",
            SOURCE, SOURCE, SOURCE);

    /** {@code %dml train}'s grammar. */
    static final TrainGrammar TRAIN = new TrainGrammar("train", TrainOptions.ALL);
    /** {@code %dml plan}'s: the job's options as train reads them, and the plan's own. */
    static final TrainGrammar PLAN = new TrainGrammar("plan",
            Stream.concat(TrainOptions.ALL.stream(), PlanOptions.ALL.stream()).toList());
    /** {@code %dml scale}'s: the job's options, and the scaling table's own. */
    static final TrainGrammar SCALE = new TrainGrammar("scale",
            Stream.concat(TrainOptions.ALL.stream(), ScaleOptions.ALL.stream()).toList());
    /** {@code %dml tune}'s: the trials' options (any of them a space), and the sweep's own. */
    static final TrainGrammar TUNE = new TrainGrammar("tune",
            Stream.concat(TrainOptions.ALL.stream(), TuneOptions.ALL.stream()).toList());
    /** {@code %dml predict}'s: a model and data, and the prediction's options. */
    static final TrainGrammar PREDICT = new TrainGrammar("predict", PredictOptions.ACCEPTED,
            List.of(MODEL, SOURCE), Map.of(MODEL, MODEL, "table", SOURCE, "data", SOURCE));

    private final String command;
    private final List<Option<?>> options;
    private final List<String> slots;
    private final Map<String, String> slotKeys;
    private final MagicsArgs schema;

    private TrainGrammar(String command, List<Option<?>> options) {
        this(command, options, List.of(SOURCE), SOURCE_KEYS);
    }

    private TrainGrammar(String command, List<Option<?>> options, List<String> slots,
            Map<String, String> slotKeys) {
        this.command = command;
        this.options = options;
        this.slots = slots;
        this.slotKeys = slotKeys;
        this.schema = schema(options, slots);
    }

    private static MagicsArgs schema(List<Option<?>> options, List<String> slots) {
        MagicsArgs.MagicsArgsBuilder b = MagicsArgs.builder();
        slots.forEach(b::optional);
        b.onlyKnownKeywords().onlyKnownFlags();
        for (Option<?> o : options) {
            b.keyword(o.name(), MagicsArgs.KeywordSpec.ONCE);
        }
        return b.build();
    }

    /** The usage line of {@code %dml train}. */
    static String usage() {
        StringBuilder s = new StringBuilder("%dml train TABLE|FILE --label COLUMN");
        for (Option<?> o : TrainOptions.ALL) {
            if (o != TrainOptions.LABEL) {
                s.append(" [").append(o.usage()).append(']');
            }
        }
        return s.toString();
    }

    /**
     * A command's help: its own lines, then one line per option.
     *
     * @param intro the command's usage and what it does, ending with a heading for the options
     * @param options the options it takes
     * @return the lines, a list the caller may add to
     */
    static List<String> helpLines(List<String> intro, List<Option<?>> options) {
        List<String> lines = new ArrayList<>(intro);
        lines.addAll(optionLines(options));
        return lines;
    }

    /** One line per option: how it is written, what it does, and its default. */
    static List<String> optionLines(List<Option<?>> options) {
        int width = options.stream().mapToInt(o -> o.usage().length()).max().orElse(0);
        List<String> lines = new ArrayList<>();
        for (Option<?> o : options) {
            lines.add("  " + o.usage() + " ".repeat(width - o.usage().length()) + "  " + o.help()
                    + " (default: " + o.defaultText() + ")");
        }
        return lines;
    }

    /**
     * Parses the words after {@code train} and, for the cell form, the body.
     *
     * @param args the line's words
     * @param body the cell body, or null for the line form
     * @return the request
     * @throws DmlException naming the first bad option and how to write it, in notebook words
     */
    static TrainRequest parse(List<String> args, String body) {
        return TRAIN.read(args, body);
    }

    /**
     * Parses the words after this grammar's command and, for the cell form, the body.
     *
     * @param args the line's words
     * @param body the cell body, or null for the line form
     * @return the request
     * @throws DmlException naming the first bad option and how to write it, in notebook words
     */
    TrainRequest read(List<String> args, String body) {
        try {
            return readWords(args, body);
        } catch (DmlException e) {
            throw e.speaking(Vocabulary.NOTEBOOK);
        }
    }

    /**
     * Parses the words after this grammar's command into its slots and options.
     *
     * @param args the line's words
     * @param body the cell body, or null for the line form
     * @return each slot's word (absent when not given), and the options given
     * @throws DmlException naming the first bad option and how to write it, in notebook words
     */
    Parsed readParts(List<String> args, String body) {
        try {
            return parts(args, body);
        } catch (DmlException e) {
            throw e.speaking(Vocabulary.NOTEBOOK);
        }
    }

    /** What a line and body hold: the positional slots' words, and the options. */
    record Parsed(Map<String, String> slots, OptionValues values) {}

    /** What a line and body hold, each option's text not read yet. */
    record Texts(Map<String, String> slots, Map<Option<?>, String> options) {}

    /**
     * Parses the words after this grammar's command into its slots and each option's text, for
     * a command that reads some texts its own way ({@code %dml tune}'s spaces).
     *
     * @param args the line's words
     * @param body the cell body, or null for the line form
     * @return each slot's word, and each option's text, in declaration order
     * @throws DmlException naming an unknown option, in notebook words
     */
    Texts readTexts(List<String> args, String body) {
        try {
            return texts(args, body);
        } catch (DmlException e) {
            throw e.speaking(Vocabulary.NOTEBOOK);
        }
    }

    private Parsed parts(List<String> args, String body) {
        Texts t = texts(args, body);
        OptionValues values = OptionValues.empty();
        for (Map.Entry<Option<?>, String> e : t.options().entrySet()) {
            values = with(values, e.getKey(), e.getValue());
        }
        return new Parsed(t.slots(), values);
    }

    private Texts texts(List<String> args, String body) {
        Map<String, String> fromBody = new LinkedHashMap<>();
        List<String> words = new ArrayList<>(args);
        if (body != null) {
            words.addAll(bodyWords(body, fromBody));
        }
        Map<String, List<String>> raw;
        try {
            raw = schema.parse(normalizeSwitches(words));
        } catch (MagicArgsParseException e) {
            throw parseError(e.getMessage());
        }
        Map<String, String> filled = new LinkedHashMap<>();
        List<String> loose = new ArrayList<>();
        for (String slot : slots) {
            loose.addAll(raw.getOrDefault(slot, List.of()));
        }
        for (String slot : slots) { // line words fill the slots the body left open, in order
            String v = fromBody.containsKey(slot) ? fromBody.get(slot)
                    : loose.isEmpty() ? null : loose.remove(0);
            if (v != null) {
                filled.put(slot, v);
            }
        }
        if (!loose.isEmpty()) {
            throw new DmlException("%dml " + command + ": '" + DmlException.literal(
                    loose.get(0)) + "' is one word too many; the cell's body already names "
                    + String.join(" and ", fromBody.keySet()) + ".", "Name each input once,"
                    + " on the line or in the body.");
        }
        Map<Option<?>, String> texts = new LinkedHashMap<>();
        for (Option<?> o : options) {
            List<String> given = raw.get(o.name());
            if (given != null && !given.isEmpty()) {
                texts.put(o, given.get(0));
            }
        }
        return new Texts(filled, texts);
    }

    private TrainRequest readWords(List<String> args, String body) {
        Parsed p = parts(args, body);
        String source = p.slots().get(SOURCE);
        OptionValues values = p.values();
        if (values.isSet(TrainOptions.PLAN)) {
            return new TrainRequest(source, values); // the plan's job fills in the rest
        }
        if (source == null) {
            throw new DmlException("%dml " + command + " needs its data: a table variable or a"
                    + " file.", "Example: %dml " + command + " fraud {label=is_fraud}   (or"
                    + " 'table: fraud' in a %%dml " + command + " cell).");
        }
        if (values.get(TrainOptions.LABEL) == null) {
            throw new DmlException("%dml " + command + " needs {label}: the column to predict.",
                    "Example: %dml " + command + " " + DmlException.literal(source)
                            + " {label=is_fraud}");
        }
        return new TrainRequest(source, values);
    }

    /** Reads one option's text into {@code values}; an error names this grammar's command. */
    <T> OptionValues with(OptionValues values, Option<T> o, String text) {
        try {
            return values.with(o, o.parse(text));
        } catch (DmlException e) {
            throw new DmlException("%dml " + command + ": " + e.whatTemplate(),
                    e.hintTemplate());
        }
    }

    /**
     * {@code key: value} lines become {@code --key=value} words; a key naming a slot ({@code
     * table: x}) fills that slot in {@code slotsOut}.
     */
    private List<String> bodyWords(String body, Map<String, String> slotsOut) {
        List<String> words = new ArrayList<>();
        String[] lines = body.split("\\R");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("//")) {
                continue;
            }
            Matcher m = BODY_LINE.matcher(line);
            if (!m.matches()) {
                throw new DmlException("%%dml " + command + ": line " + (i + 1) + " '"
                        + DmlException.literal(line) + "' is not 'key: value'.",
                        "Write one option per line, e.g. 'epochs: 3'; %dml help " + command
                                + " lists the keys.");
            }
            String key = m.group(1).toLowerCase(Locale.ROOT).replace('_', '-');
            String value = m.group(2).strip();
            if (slotKeys.containsKey(key)) {
                slotsOut.put(slotKeys.get(key), value);
            } else {
                words.add("--" + key + "=" + value.replaceAll("\\s*,\\s*", ","));
            }
        }
        return words;
    }

    /**
     * A bare {@code --debug} would swallow the next word as its value: give it one. {@code
     * --no-shuffle} turns a switch that defaults to on off.
     */
    private List<String> normalizeSwitches(List<String> words) {
        List<String> out = new ArrayList<>(words.size());
        for (String w : words) {
            boolean bare = w.startsWith("--") && !w.contains("=");
            if (bare && option(w.substring(2)).map(Option::isSwitch).orElse(false)) {
                out.add(w + "=true");
            } else if (bare && w.startsWith("--no-") && option(w.substring(2)).isEmpty()
                    && option(w.substring(5)).map(Option::isSwitch).orElse(false)) {
                out.add("--" + w.substring(5) + "=false");
            } else {
                out.add(w);
            }
        }
        return out;
    }

    private Optional<Option<?>> option(String name) {
        return options.stream().filter(o -> o.name().equals(name)).findFirst();
    }

    private DmlException parseError(String message) {
        Matcher m = UNKNOWN_KEYWORD.matcher(message);
        if (m.matches()) {
            String name = m.group(1);
            String guess = Suggestions.closest(name, options.stream().map(Option::name)
                    .toList()).map(g -> "Did you mean --" + g + "? ").orElse("");
            return new DmlException("%dml " + command + ": unknown option --"
                    + DmlException.literal(name) + ".", guess + "%dml help " + command
                    + " lists the options.");
        }
        return new DmlException("%dml " + command + ": " + DmlException.literal(message),
                "Usage: " + DmlException.literal(switch (command) {
                    case "plan" -> PlanCommand.USAGE;
                    case "scale" -> ScaleCommand.USAGE;
                    case "predict" -> PredictCommand.USAGE;
                    case "tune" -> TuneCommand.USAGE;
                    default -> usage();
                }));
    }
}

package dev.dml.options;

import dev.dml.DmlException;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * One training option, declared once: its flag and cell key, value type, default, help line,
 * an example, and the Java words for it. The {@code %dml train} grammar, {@code %dml help
 * train}, the generated option reference and {@code TrainSpec.builder()} all read it; see
 * {@link TrainOptions} for the catalogue.
 *
 * @param <T> the value's type
 */
public final class Option<T> {

    /** Who turns the option's value into the job. */
    public enum Target {
        /** The training spec takes it as it is: {@code TrainSpec.builder().opt(option, v)}. */
        SPEC,
        /** The notebook side resolves it (a variable, a column, job control). */
        KERNEL
    }

    private final String name;
    private final ValueType<T> type;
    private final String metavar;
    private final String help;
    private final String defaultText;
    private final Function<OptionValues, T> defaultValue;
    private final String example;
    private final String javaTerm;
    private final Target target;

    Option(String name, ValueType<T> type, String metavar, String help, String defaultText,
            Function<OptionValues, T> defaultValue, String example, String javaTerm,
            Target target) {
        this.name = Objects.requireNonNull(name);
        this.type = Objects.requireNonNull(type);
        this.metavar = metavar;
        this.help = Objects.requireNonNull(help);
        this.defaultText = defaultText;
        this.defaultValue = defaultValue;
        this.example = Objects.requireNonNull(example);
        this.javaTerm = javaTerm;
        this.target = target;
    }

    /**
     * Returns the name: the flag without {@code --}, and the key of the cell form.
     *
     * @return e.g. {@code batch-size}
     */
    public String name() {
        return name;
    }

    /**
     * Returns the flag.
     *
     * @return e.g. {@code --batch-size}
     */
    public String flag() {
        return "--" + name;
    }

    /**
     * Returns the constant of {@link TrainOptions} that holds this option.
     *
     * @return e.g. {@code BATCH_SIZE}
     */
    public String constant() {
        return name.toUpperCase(Locale.ROOT).replace('-', '_');
    }

    /**
     * Returns the value type.
     *
     * @return the type
     */
    public ValueType<T> type() {
        return type;
    }

    /**
     * Tells whether the option is a switch, on when given without a value.
     *
     * @return {@code true} for a switch such as {@code --resume}
     */
    public boolean isSwitch() {
        return metavar == null;
    }

    /**
     * Returns how the option is written with a placeholder value.
     *
     * @return e.g. {@code --batch-size B}
     */
    public String usage() {
        return isSwitch() ? flag() : flag() + " " + metavar;
    }

    /**
     * Returns the help line.
     *
     * @return e.g. "rows per worker per step"
     */
    public String help() {
        return help;
    }

    /**
     * Returns the default as the help shows it.
     *
     * @return e.g. {@code 64}, or "none"
     */
    public String defaultText() {
        return defaultText;
    }

    /**
     * Returns a valid example value, as a user would type it.
     *
     * @return e.g. {@code 128}
     */
    public String example() {
        return example;
    }

    /**
     * Returns who turns the value into the job.
     *
     * @return the target
     */
    public Target target() {
        return target;
    }

    /**
     * Returns the Java words for setting the option.
     *
     * @return a builder method such as {@code optBatchSize}, or another short phrase
     */
    public String javaTerm() {
        if (javaTerm != null) {
            return javaTerm;
        }
        // job control exists only in the notebook; a spec option is set with opt(...)
        return target == Target.KERNEL ? flag() : "opt(TrainOptions." + constant() + ", ...)";
    }

    /** The default for these values, or null when the option has none. */
    T defaultFor(OptionValues values) {
        return defaultValue == null ? null : defaultValue.apply(values);
    }

    /**
     * Reads a value written as text, as in a notebook cell.
     *
     * @param text the text after the flag
     * @return the value
     * @throws DmlException naming the option, what it takes, and an example
     */
    public T parse(String text) {
        T v = type.parseOrNull(text == null ? "" : text);
        if (v == null) {
            throw invalid("'" + DmlException.literal(text) + "'");
        }
        return v;
    }

    /**
     * Checks a value given in Java.
     *
     * @param value the value
     * @return the value
     * @throws DmlException naming the option, what it takes, and an example
     */
    public T check(T value) {
        if (!type.isValid(value)) {
            throw invalid(DmlException.literal(value));
        }
        return value;
    }

    /**
     * Checks a value given in Java as the word a user would type, such as a choice's word.
     *
     * @param word the word, or null to leave the option unset
     * @return the value, or null for a null word
     * @throws DmlException naming the option, what it takes, and an example
     */
    public T checkWord(String word) {
        if (word == null) {
            return null;
        }
        T v = type.parseOrNull(word);
        if (v == null) {
            throw invalid(DmlException.literal(word));
        }
        return v;
    }

    private DmlException invalid(String got) {
        return new DmlException("{" + name + "} must be " + type.expectation() + ", got " + got
                + ".", "For example {" + name + "=" + example + "}: " + help + ".");
    }

    /**
     * Returns the option in a notebook's words.
     *
     * @param value a value to show with it, or null
     * @return e.g. {@code --batch-size 64}
     */
    public String notebookWords(String value) {
        return value == null || isSwitch() ? flag() : flag() + " " + value;
    }

    /**
     * Returns the option in the Java API's words.
     *
     * @param value a value to show with it, or null
     * @return e.g. {@code optBatchSize(64)}
     */
    public String javaWords(String value) {
        String term = javaTerm();
        if (value == null) {
            return term;
        }
        if (javaTerm == null) {
            return target == Target.KERNEL ? notebookWords(value)
                    : "opt(TrainOptions." + constant() + ", " + value + ")";
        }
        return term.matches("[a-z]\\w*") ? term + "(" + value + ")" : term + " " + value;
    }

    @Override
    public String toString() {
        return flag();
    }
}

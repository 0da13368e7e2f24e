package dev.dml.tune;

import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TuneOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The options a sweep varies, each written where the option is: {@code --lr 1e-4..1e-2:log} (a
 * range, sampled log-uniformly), {@code --hidden 32,32|64,64|128} and {@code --batch-size
 * 64|256} (values to choose from). A value with neither {@code |} nor {@code ..} is no space:
 * every trial gets it.
 */
public final class SearchSpace {

    private static final Pattern RANGE = Pattern.compile("\\s*(\\S+?)\\.\\.(\\S+?)(:log)?\\s*");
    private static final Pattern NUMBER = Pattern.compile("[-+]?(\\d+\\.?\\d*|\\.\\d+)"
            + "([eE][-+]?\\d+)?");

    /** One varied option. */
    public sealed interface Dimension {
        /**
         * Returns the option it varies.
         *
         * @return the option
         */
        Option<?> option();
    }

    /**
     * Values to choose from.
     *
     * @param option the option
     * @param values its values, each checked by the option
     */
    public record Choices(Option<?> option, List<Object> values) implements Dimension {
        /** Plain data. */
        public Choices {
            values = List.copyOf(values);
        }
    }

    /**
     * A range of numbers, both ends included.
     *
     * @param option the option
     * @param low the lower end
     * @param high the upper end
     * @param log whether it is sampled log-uniformly
     * @param whole whether the option takes whole numbers
     */
    public record Range(Option<?> option, double low, double high, boolean log, boolean whole)
            implements Dimension {}

    private final List<Dimension> dimensions;

    /**
     * A space of these dimensions.
     *
     * @param dimensions one per varied option
     */
    public SearchSpace(List<Dimension> dimensions) {
        this.dimensions = List.copyOf(dimensions);
    }

    /**
     * Returns the dimensions.
     *
     * @return one per varied option, in the order written
     */
    public List<Dimension> dimensions() {
        return dimensions;
    }

    /**
     * Tells whether an option's text is a space rather than one value.
     *
     * @param text what followed the option
     * @return whether it holds {@code |} or is a range of two numbers
     */
    public static boolean isSpace(String text) {
        if (text.contains("|")) {
            return true;
        }
        Matcher m = RANGE.matcher(text);
        return m.matches() && NUMBER.matcher(m.group(1)).matches()
                && NUMBER.matcher(m.group(2)).matches();
    }

    /**
     * Reads an option's space.
     *
     * @param option the option it varies
     * @param text what followed it, e.g. {@code 1e-4..1e-2:log} or {@code 64|256}
     * @return the dimension
     * @throws DmlException naming what is wrong, in {@code {option}} words
     */
    public static Dimension parse(Option<?> option, String text) {
        String name = option.name();
        if (option.target() != Option.Target.SPEC) {
            throw new DmlException("{" + name + "} is the same for every trial, so it cannot"
                    + " vary: '" + DmlException.literal(text) + "'.", "Give {" + name + "} one"
                    + " value; vary the training options, e.g. {lr=1e-4..1e-2:log}.");
        }
        if (text.contains("|")) {
            List<Object> values = new ArrayList<>();
            for (String part : text.split("\\|", -1)) {
                if (part.isBlank()) {
                    throw new DmlException("{" + name + "} '" + DmlException.literal(text)
                            + "' has an empty choice.", "Separate the values with one |, e.g."
                            + " {" + name + "=" + option.example() + "|" + option.example() + "}.");
                }
                Object v = option.parse(part.strip());
                if (values.contains(v)) {
                    throw new DmlException("{" + name + "} '" + DmlException.literal(text)
                            + "' lists " + DmlException.literal(part.strip()) + " twice.",
                            "List each value once.");
                }
                values.add(v);
            }
            return new Choices(option, values);
        }
        Matcher m = RANGE.matcher(text);
        if (!m.matches()) {
            throw new DmlException("{" + name + "} '" + DmlException.literal(text) + "' is no"
                    + " space.", "Write a range LOW..HIGH (add :log for a log scale) or values"
                    + " A|B|C, e.g. {lr=1e-4..1e-2:log}.");
        }
        Object low = option.parse(m.group(1));
        Object high = option.parse(m.group(2));
        if (!(low instanceof Number lo) || !(high instanceof Number hi)) {
            throw new DmlException("{" + name + "} takes no range ('" + DmlException.literal(text)
                    + "'): its values are no numbers.", "List its values instead, e.g. {"
                    + name + "=" + option.example() + "|" + option.example() + "}.");
        }
        boolean log = m.group(3) != null;
        if (!(lo.doubleValue() < hi.doubleValue())) {
            throw new DmlException("{" + name + "} '" + DmlException.literal(text) + "': the"
                    + " range's low end is not below its high end.", "Write LOW..HIGH, e.g. {"
                    + name + "=" + m.group(2) + ".." + m.group(1) + (log ? ":log" : "") + "}.");
        }
        if (log && lo.doubleValue() <= 0) {
            throw new DmlException("{" + name + "} '" + DmlException.literal(text) + "': a log"
                    + " range must start above 0.", "Start it above 0, or drop :log.");
        }
        return new Range(option, lo.doubleValue(), hi.doubleValue(), log,
                low instanceof Integer || low instanceof Long);
    }

    /**
     * Returns how many configurations a grid search has.
     *
     * @return the product of the choices' counts
     * @throws DmlException when a dimension is a range, which a grid cannot enumerate
     */
    public int gridSize() {
        long n = 1;
        for (Dimension d : dimensions) {
            if (d instanceof Range r) {
                String range = format(r.low(), r.whole()) + ".." + format(r.high(), r.whole())
                        + (r.log() ? ":log" : "");
                throw new DmlException("{search=grid} cannot enumerate the range {"
                        + r.option().name() + "=" + range + "}.", "List its values (e.g. {"
                        + r.option().name() + "=" + format(r.low(), r.whole()) + "|"
                        + format(r.high(), r.whole()) + "}), or sample it with {search=random}"
                        + " {trials=12}.");
            }
            n *= ((Choices) d).values().size();
            if (n > 10_000) {
                throw new DmlException("The grid has over 10,000 configurations.",
                        "List fewer values, or sample the space with {search=random}"
                        + " {trials=12}.");
            }
        }
        return (int) n;
    }

    /**
     * Every combination of the choices, the first dimension varying slowest.
     *
     * @param fixed the options every trial shares
     * @return one set of options per configuration
     */
    public List<OptionValues> grid(OptionValues fixed) {
        List<OptionValues> out = new ArrayList<>(List.of(fixed));
        for (Dimension d : dimensions) {
            gridSize(); // refuses ranges
            List<OptionValues> next = new ArrayList<>();
            for (OptionValues v : out) {
                for (Object value : ((Choices) d).values()) {
                    next.add(put(v, d.option(), value));
                }
            }
            out = next;
        }
        return out;
    }

    /**
     * Draws configurations at random: a choice uniformly, a range uniformly (log-uniformly with
     * {@code :log}).
     *
     * @param fixed the options every trial shares
     * @param trials how many to draw
     * @param seed the draws' seed, so a sweep can be repeated
     * @return one set of options per trial
     */
    public List<OptionValues> random(OptionValues fixed, int trials, long seed) {
        Random random = new Random(seed);
        List<OptionValues> out = new ArrayList<>();
        for (int t = 0; t < trials; t++) {
            OptionValues v = fixed;
            for (Dimension d : dimensions) {
                v = put(v, d.option(), draw(d, random));
            }
            out.add(v);
        }
        return out;
    }

    private static Object draw(Dimension d, Random random) {
        if (d instanceof Choices c) {
            return c.values().get(random.nextInt(c.values().size()));
        }
        Range r = (Range) d;
        double u = random.nextDouble();
        double x = r.log() ? Math.exp(Math.log(r.low()) + u * (Math.log(r.high())
                - Math.log(r.low()))) : r.low() + u * (r.high() - r.low());
        if (!r.whole()) {
            return x;
        }
        long whole = Math.min((long) r.high(), Math.max((long) r.low(), Math.round(x)));
        return r.option().parse(Long.toString(whole));
    }

    /**
     * A trial's varied values as text, e.g. {@code lr=0.0012 hidden=64,64}.
     *
     * @param options the trial's options
     * @return the varied options and their values
     */
    public String describe(OptionValues options) {
        List<String> parts = new ArrayList<>();
        for (Dimension d : dimensions) {
            parts.add(d.option().name() + "=" + text(d.option(), options));
        }
        return String.join(" ", parts);
    }

    /**
     * An option's value as a cell writes it, short for numbers.
     *
     * @param option the option
     * @param options the values
     * @return the text
     */
    public static String text(Option<?> option, OptionValues options) {
        Object v = options.get(option);
        if (v instanceof Double d) {
            return String.format(java.util.Locale.ROOT, "%.3g", d);
        }
        return format(option, v);
    }

    @SuppressWarnings("unchecked")
    private static <T> String format(Option<T> option, Object value) {
        return value == null ? "-" : option.type().format((T) value);
    }

    private static String format(double v, boolean whole) {
        return whole ? Long.toString((long) v) : String.format(java.util.Locale.ROOT, "%.3g", v);
    }

    @SuppressWarnings("unchecked")
    private static <T> OptionValues put(OptionValues v, Option<T> option, Object value) {
        return v.with(option, (T) value);
    }

    /** The sweep id option, for the trials' specs. */
    static OptionValues inSweep(OptionValues v, String sweepId) {
        return v.with(TuneOptions.SWEEP, sweepId);
    }
}

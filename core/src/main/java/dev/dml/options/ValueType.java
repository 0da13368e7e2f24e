package dev.dml.options;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How an option's value is written and which values are valid: one parser and one check for
 * the notebook's text and the Java API's values alike.
 *
 * @param <T> the value's Java type
 */
public final class ValueType<T> {

    private final String expectation;
    private final Function<String, T> parser;
    private final Predicate<T> valid;
    private final Function<T, String> format;

    private ValueType(String expectation, Function<String, T> parser, Predicate<T> valid,
            Function<T, String> format) {
        this.expectation = expectation;
        this.parser = parser;
        this.valid = valid;
        this.format = format;
    }

    /**
     * A whole number of at least 1.
     *
     * @return the type
     */
    public static ValueType<Integer> count() {
        return new ValueType<>("a whole number of at least 1", s -> Integer.parseInt(s.strip()),
                n -> n >= 1, String::valueOf);
    }

    /**
     * A whole number of at least 0.
     *
     * @return the type
     */
    public static ValueType<Integer> countOrNone() {
        return new ValueType<>("a whole number of at least 0", s -> Integer.parseInt(s.strip()),
                n -> n >= 0, String::valueOf);
    }

    /**
     * A worker count of at least 1, or an elastic range {@code MIN:MAX} with {@code 1 <= MIN <=
     * MAX}.
     *
     * @return the type
     */
    public static ValueType<WorkerRange> workerRange() {
        String what = "a whole number of at least 1, or a range of them such as 2:4";
        return new ValueType<>(what, s -> {
            String[] parts = s.strip().split(":", -1);
            if (parts.length > 2) {
                throw new IllegalArgumentException(s);
            }
            int max = Integer.parseInt(parts[parts.length - 1].strip());
            return new WorkerRange(Integer.parseInt(parts[0].strip()), max);
        }, r -> r.min() >= 1 && r.max() >= r.min(), WorkerRange::toString);
    }

    /**
     * A whole number, negative ones included.
     *
     * @return the type
     */
    public static ValueType<Long> integer() {
        return new ValueType<>("a whole number", s -> Long.parseLong(s.strip()), n -> true,
                String::valueOf);
    }

    /**
     * A finite number of at least 0 that a float can hold.
     *
     * @return the type
     */
    public static ValueType<Double> nonNegative() {
        return new ValueType<>("a number of at least 0", ValueType::number,
                d -> d >= 0 && d <= Float.MAX_VALUE, ValueType::formatNumber);
    }

    /**
     * A finite number above 0 that a float can hold (a value past float range would become
     * infinite when the engine casts it).
     *
     * @return the type
     */
    public static ValueType<Double> positive() {
        return new ValueType<>("a number above 0", ValueType::number,
                d -> d > 0 && d <= Float.MAX_VALUE && (float) (double) d > 0,
                ValueType::formatNumber);
    }

    /**
     * A length of time above 0: a number with a unit, {@code 90s}, {@code 30m}, {@code 2h} or
     * {@code 1h30m}; the value is in seconds.
     *
     * @return the type
     */
    public static ValueType<Double> duration() {
        return new ValueType<>("a time such as 90s, 30m, 2h or 1h30m", ValueType::seconds,
                d -> d > 0 && Double.isFinite(d), ValueType::formatSeconds);
    }

    /**
     * Non-blank text.
     *
     * @return the type
     */
    public static ValueType<String> text() {
        return new ValueType<>("a value", String::strip, s -> !s.isBlank(), s -> s);
    }

    /**
     * A Java variable name.
     *
     * @return the type
     */
    public static ValueType<String> variableName() {
        return new ValueType<>("a Java variable name", String::strip,
                s -> s.matches("[A-Za-z_$][\\w$]*"), s -> s);
    }

    /**
     * One of an enum's words ({@link Choice#word()}), in any case; the value is the constant.
     *
     * @param type the enum
     * @param <E> the enum
     * @return the type
     */
    public static <E extends Enum<E> & Choice> ValueType<E> choice(Class<E> type) {
        return new ValueType<>("one of " + String.join(", ", Choice.words(type)),
                s -> Choice.of(type, s), e -> true, Choice::word);
    }

    /**
     * Sizes of at least 1, separated by commas: {@code 64,32}.
     *
     * @return the type
     */
    public static ValueType<List<Integer>> sizes() {
        return new ValueType<>("sizes of at least 1, like 64,32", s -> {
            List<Integer> out = new ArrayList<>();
            for (String part : s.split(",", -1)) {
                out.add(Integer.parseInt(part.strip()));
            }
            return List.copyOf(out);
        }, l -> !l.isEmpty() && l.stream().allMatch(n -> n != null && n >= 1),
                l -> String.join(",", l.stream().map(String::valueOf).toList()));
    }

    /**
     * An image shape {@code HxW} or {@code HxWxC}, each at least 1 (C is 1 when left out); the
     * value is {@code [H, W, C]}.
     *
     * @return the type
     */
    public static ValueType<List<Integer>> imageShape() {
        return new ValueType<>("an image shape HxW or HxWxC, like 8x8 or 32x32x3", s -> {
            String[] parts = s.strip().toLowerCase(Locale.ROOT).split("x", -1);
            if (parts.length < 2 || parts.length > 3) {
                throw new IllegalArgumentException(s);
            }
            return List.of(Integer.parseInt(parts[0].strip()), Integer.parseInt(parts[1].strip()),
                    parts.length == 3 ? Integer.parseInt(parts[2].strip()) : 1);
        }, l -> l.size() == 3 && l.stream().allMatch(n -> n != null && n >= 1)
                && (long) l.get(0) * l.get(1) * l.get(2) <= Integer.MAX_VALUE,
                l -> l.get(0) + "x" + l.get(1) + (l.get(2) == 1 ? "" : "x" + l.get(2)));
    }

    /**
     * Column names separated by commas: {@code a,b,c}.
     *
     * @return the type
     */
    public static ValueType<List<String>> names() {
        return new ValueType<>("column names, like a,b,c", s -> {
            List<String> out = new ArrayList<>();
            for (String part : s.split(",", -1)) {
                out.add(part.strip());
            }
            return List.copyOf(out);
        }, l -> !l.isEmpty() && l.stream().noneMatch(n -> n == null || n.isBlank()),
                l -> String.join(",", l));
    }

    /**
     * A switch: {@code true}/{@code yes} or {@code false}/{@code no}; a bare flag is true.
     *
     * @return the type
     */
    public static ValueType<Boolean> onOff() {
        return new ValueType<>("true or false", s -> switch (s.strip().toLowerCase(Locale.ROOT)) {
            case "true", "yes" -> true;
            case "false", "no" -> false;
            default -> throw new IllegalArgumentException(s);
        }, b -> b != null, String::valueOf);
    }

    /**
     * A fraction strictly between 0 and 1, or a name: {@code 0.2} or {@code holdout}.
     *
     * @return the type
     */
    public static ValueType<String> fractionOrName() {
        return new ValueType<>("a fraction between 0 and 1, or a table variable", String::strip,
                s -> {
                    try {
                        double d = Double.parseDouble(s);
                        return d > 0 && d < 1;
                    } catch (NumberFormatException name) {
                        return s.matches("[A-Za-z_$][\\w$]*");
                    }
                }, s -> s);
    }

    /**
     * A gradient compression scheme: {@code none}, {@code fp16}, {@code bf16}, {@code int8},
     * {@code topk:RATIO[:WARMUP]} with {@code 0 < RATIO <= 1} and {@code WARMUP >= 0} epochs,
     * or {@code powersgd:RANK} with a whole {@code RANK >= 1}; the value is the scheme in lower
     * case, the numbers as written.
     *
     * @return the type
     */
    public static ValueType<Compression> compression() {
        return new ValueType<>("none, fp16, bf16, int8, topk:RATIO[:WARMUP] with 0 < RATIO"
                + " \u2264 1 and WARMUP \u2265 0 epochs, or powersgd:RANK with a whole RANK"
                + " \u2265 1",
                ValueType::compressionOf, c -> true, Compression::toString);
    }

    /**
     * How data-parallel workers agree on the parameters: {@code sync}, {@code async} or {@code
     * ssp:S} with a whole {@code S >= 0}, in any case.
     *
     * @return the type
     */
    public static ValueType<SyncMode> syncMode() {
        return new ValueType<>("sync, async, or ssp:S with S a whole number of at least 0",
                s -> SyncMode.parse(s.strip().toLowerCase(Locale.ROOT)), m -> true,
                SyncMode::toString);
    }

    /**
     * A learning-rate schedule: {@code constant}, {@code cosine}, or {@code step:EVERY:GAMMA}
     * with a whole {@code EVERY} of at least 1 and {@code 0 < GAMMA < 1}, in any case.
     *
     * @return the type
     */
    public static ValueType<LrSchedule> lrSchedule() {
        return new ValueType<>("constant, cosine, or step:EVERY:GAMMA with EVERY a whole number"
                + " of at least 1 and 0 < GAMMA < 1",
                s -> LrSchedule.parse(s.strip().toLowerCase(Locale.ROOT)), l -> true,
                LrSchedule::toString);
    }

    private static Compression compressionOf(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        if (!isCompression(s)) {
            throw new IllegalArgumentException(text);
        }
        return Compression.of(s);
    }

    private static boolean isCompression(String s) {
        if (List.of("none", "fp16", "bf16", "int8").contains(s)) {
            return true;
        }
        String[] parts = s.split(":", -1);
        if (parts.length == 3 && parts[0].equals("topk")) {
            double w = Double.parseDouble(parts[2]);
            return isCompression(parts[0] + ":" + parts[1]) && w >= 0 && !Double.isInfinite(w);
        }
        if (parts.length != 2) {
            return false;
        }
        return switch (parts[0]) {
            case "topk" -> {
                double r = Double.parseDouble(parts[1]);
                yield r > 0 && r <= 1;
            }
            case "powersgd" -> Integer.parseInt(parts[1]) >= 1;
            default -> false;
        };
    }

    /**
     * Says which values are valid, as a message's "must be ..." completes it.
     *
     * @return e.g. "a whole number of at least 1"
     */
    public String expectation() {
        return expectation;
    }

    /**
     * Tells whether a value is one this type accepts.
     *
     * @param value the value
     * @return {@code true} when valid
     */
    public boolean isValid(T value) {
        try {
            return value != null && valid.test(value);
        } catch (RuntimeException wrongShape) {
            return false;
        }
    }

    /**
     * Writes a value as a user would type it.
     *
     * @param value the value
     * @return its text
     */
    public String format(T value) {
        return format.apply(value);
    }

    /** The value written in {@code text}, or null when the text is not of this type. */
    T parseOrNull(String text) {
        try {
            T v = parser.apply(text);
            return isValid(v) ? v : null;
        } catch (RuntimeException notOfThisType) {
            return null;
        }
    }

    private static Double number(String s) {
        double d = Double.parseDouble(s.strip());
        if (!Double.isFinite(d)) {
            throw new NumberFormatException(s);
        }
        return d;
    }

    private static Double seconds(String s) {
        Matcher m = Pattern.compile("(\\d+(?:\\.\\d+)?)([hms])")
                .matcher(s.strip().toLowerCase(Locale.ROOT));
        double total = 0;
        int end = 0;
        while (m.find() && m.start() == end) {
            double n = Double.parseDouble(m.group(1));
            total += n * switch (m.group(2)) {
                case "h" -> 3600;
                case "m" -> 60;
                default -> 1;
            };
            end = m.end();
        }
        if (end == 0 || end != s.strip().length()) {
            throw new NumberFormatException(s);
        }
        return total;
    }

    private static String formatSeconds(Double d) {
        long s = Math.round(d);
        StringBuilder out = new StringBuilder();
        if (s >= 3600) {
            out.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            out.append(s % 3600 / 60).append('m');
        }
        if (s % 60 > 0 || out.length() == 0) {
            out.append(s % 60).append('s');
        }
        return out.toString();
    }

    private static String formatNumber(Double d) {
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? String.valueOf(d.longValue())
                : String.valueOf(d);
    }
}

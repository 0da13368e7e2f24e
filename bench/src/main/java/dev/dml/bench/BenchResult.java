package dev.dml.bench;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One benchmark's result, written as {@code <dir>/<id>.json} with the fields {@code id}, {@code
 * ratio}, {@code goal}, {@code met}, {@code command}, {@code machine} and {@code date}, followed by
 * the numbers behind the ratio that the benchmark adds with {@link #put}.
 *
 * <pre>{@code
 * BenchResult r = new BenchResult("P6", 0.25, "bash bench/run P6")
 *         .setRatio(0.31)
 *         .put("datasets", list);
 * r.write(Path.of("bench/results"));
 * }</pre>
 */
public final class BenchResult {

    private static final Gson GSON =
            new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().create();

    private final String id;
    private final double goal;
    private final String command;
    private Double ratio;
    private boolean smallerIsBetter;
    private final Map<String, Object> numbers = new LinkedHashMap<>();

    /**
     * Starts a result.
     *
     * @param id the benchmark's id, e.g. {@code P6}
     * @param goal the ratio the benchmark should reach; {@code met} is {@code ratio >= goal}
     * @param command the exact command that produced it, e.g. {@code bash bench/run P6}
     */
    public BenchResult(String id, double goal, String command) {
        this.id = id;
        this.goal = goal;
        this.command = command;
    }

    /**
     * Sets the ratio (required).
     *
     * @param r the measured ratio, finite
     * @return this result
     */
    public BenchResult setRatio(double r) {
        if (!Double.isFinite(r)) {
            throw new IllegalArgumentException("The ratio of " + id + " is " + r + ".");
        }
        this.ratio = r;
        return this;
    }

    /**
     * Makes this a result where smaller is better, such as seconds to recover: {@code met} is
     * then {@code ratio <= goal}, and the file says so.
     *
     * @return this result
     */
    public BenchResult optSmallerIsBetter() {
        this.smallerIsBetter = true;
        return this;
    }

    /**
     * Adds a field after the standard ones: the numbers behind the ratio.
     *
     * @param key the field name
     * @param value a value Gson can write (numbers, strings, lists, maps)
     * @return this result
     */
    public BenchResult put(String key, Object value) {
        numbers.put(key, value);
        return this;
    }

    /**
     * Returns the ratio.
     *
     * @return the ratio, or {@code null} before {@link #setRatio}
     */
    public Double ratio() {
        return ratio;
    }

    /**
     * Returns the goal.
     *
     * @return the ratio the benchmark should reach
     */
    public double goal() {
        return goal;
    }

    /**
     * Tells whether the ratio reaches the goal.
     *
     * @return {@code ratio >= goal}, or {@code ratio <= goal} where smaller is better
     */
    public boolean met() {
        return ratio != null && (smallerIsBetter ? ratio <= goal : ratio >= goal);
    }

    /**
     * Returns the JSON text.
     *
     * @return pretty-printed JSON
     */
    public String toJson() {
        if (ratio == null) {
            throw new IllegalStateException(
                    "The result of " + id + " has no ratio; call setRatio.");
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", id);
        m.put("ratio", TrialTimes.round(ratio, 4));
        m.put("goal", goal);
        if (smallerIsBetter) {
            m.put("smaller_is_better", true);
        }
        m.put("met", met());
        m.put("command", command);
        m.put("machine", Machine.describe());
        m.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        m.putAll(numbers);
        return GSON.toJson(m) + "\n";
    }

    /**
     * Writes {@code <dir>/<id>.json}, replacing it atomically.
     *
     * @param dir the results folder, created if missing
     * @return the file written
     */
    public Path write(Path dir) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(id + ".json");
            Path tmp = dir.resolve(id + ".json.tmp");
            Files.writeString(tmp, toJson(), StandardCharsets.UTF_8);
            return Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the result of " + id + ".", e);
        }
    }
}

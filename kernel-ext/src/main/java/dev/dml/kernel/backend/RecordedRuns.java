package dev.dml.kernel.backend;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.dml.DmlException;
import dev.dml.Suggestions;
import dev.dml.magics.RunViews;
import dev.dml.options.Option;
import dev.dml.options.TrainOptions;
import dev.dml.options.TuneOptions;
import dev.dml.ray.runs.Runs;
import java.nio.file.Path;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.Table;

/** {@code %dml runs} and {@code %dml compare} read from a run store (see {@link Runs}). */
final class RecordedRuns {

    /** The settings {@code %dml runs} shows beside each run's results. */
    static final List<Option<?>> KEY_SETTINGS = List.of(TrainOptions.MODEL, TrainOptions.HIDDEN,
            TrainOptions.EPOCHS, TrainOptions.BATCH_SIZE, TrainOptions.OPTIMIZER, TrainOptions.LR,
            TrainOptions.WORKERS);
    /** What {@code --metric} may name: per step, then per epoch. */
    static final List<String> METRICS = List.of("loss", "train_loss", "val_loss",
            "val_accuracy");
    private static final DateTimeFormatter STARTED = DateTimeFormatter
            .ofPattern("yyyy-MM-dd HH:mm").withZone(ZoneId.systemDefault());

    private final Path store;

    RecordedRuns(Path store) {
        this.store = store;
    }

    /** The runs, filtered and cut as {@code --where} and {@code --last} say. */
    RunViews.RunList list(String where, int last) {
        try (Runs runs = Runs.open(store)) {
            Table all = runs.table();
            List<String> header = new ArrayList<>(List.of("id", "status", "started", "data"));
            KEY_SETTINGS.forEach(o -> header.add(o.name()));
            header.addAll(List.of("final_loss", "val_loss", "val_accuracy", "usd",
                    "wall_seconds"));
            List<Map<String, Object>> values = new ArrayList<>();
            Set<String> columns = new LinkedHashSet<>(header);
            columns.addAll(List.of("name", "steps", "epochs", "rows", "dml_version"));
            TrainOptions.ALL.forEach(o -> columns.add(o.name()));
            columns.add(TuneOptions.SWEEP.name());
            for (int r = 0; r < all.rowCount(); r++) {
                values.add(row(all, r));
            }
            RunFilter filter = where == null ? null : RunFilter.parse(where, columns);
            List<List<String>> rows = new ArrayList<>();
            for (Map<String, Object> v : values) {
                if ((filter == null || filter.matches(v)) && (last == 0 || rows.size() < last)) {
                    rows.add(header.stream().map(h -> text(h, v.get(h))).toList());
                }
            }
            return new RunViews.RunList(store.toString(), header, rows, all.rowCount());
        }
    }

    /** A run's values by column: its results, and every setting it was trained with. */
    private static Map<String, Object> row(Table all, int r) {
        Map<String, Object> v = new LinkedHashMap<>();
        settings(all.stringColumn("settings").get(r)).forEach(v::put);
        for (String c : List.of("id", "name", "status", "data", "dml_version")) {
            v.put(c, all.stringColumn(c).get(r));
        }
        v.put("started", STARTED.format(all.instantColumn("started").get(r)));
        for (String c : List.of("steps", "epochs", "rows", "final_loss", "val_loss",
                "val_accuracy", "usd", "wall_seconds")) {
            NumericColumn<?> n = all.numberColumn(c);
            v.put(c, n.isMissing(r) ? null : n.getDouble(r));
        }
        return v;
    }

    private static Map<String, String> settings(String json) {
        Map<String, String> out = new LinkedHashMap<>();
        JsonObject o = JsonParser.parseString(json).getAsJsonObject();
        for (Map.Entry<String, JsonElement> e : o.entrySet()) {
            out.put(e.getKey(), e.getValue().getAsString());
        }
        return out;
    }

    private static String text(String column, Object v) {
        if (v == null) {
            return "-";
        }
        if (!(v instanceof Double d)) {
            return v.toString();
        }
        return switch (column) {
            case "usd" -> String.format(Locale.ROOT, "$%.4f", d);
            case "wall_seconds" -> String.format(Locale.ROOT, "%.1f", d);
            case "val_accuracy" -> String.format(Locale.ROOT, "%.4f", d);
            case "steps", "epochs", "rows" -> String.format(Locale.ROOT, "%d", d.longValue());
            default -> String.format(Locale.ROOT, "%.4g", d);
        };
    }

    /** The runs' curves of a metric, and the settings that differ between them. */
    RunViews.Comparison compare(List<String> ids, String metric) {
        if (!METRICS.contains(metric)) {
            String guess = Suggestions.closest(metric, METRICS).map(g -> "Did you mean '" + g
                    + "'? ").orElse("");
            throw new DmlException("--metric '" + DmlException.literal(metric) + "' is no"
                    + " metric dml records.", guess + "Metrics: " + String.join(", ", METRICS)
                    + ".");
        }
        try (Runs runs = Runs.open(store)) {
            Table all = runs.table();
            List<String> known = all.stringColumn("id").asList();
            List<Map<String, String>> settings = new ArrayList<>();
            List<RunViews.Curve> curves = new ArrayList<>();
            for (String id : ids) {
                int r = known.indexOf(id);
                if (r < 0) {
                    String guess = Suggestions.closest(id, known).map(g -> "Did you mean '" + g
                            + "'? ").orElse("");
                    throw new DmlException("No run '" + DmlException.literal(id) + "' in the"
                            + " run store " + DmlException.literal(store) + ".", guess
                            + "Take an id from %dml runs.");
                }
                Map<String, String> s = settings(all.stringColumn("settings").get(r));
                s.put("data", all.stringColumn("data").get(r) + " (" + all.longColumn("rows")
                        .get(r) + " rows)");
                s.put("data_hash", Objects.toString(all.stringColumn("data_hash").get(r), "-"));
                settings.add(s);
                curves.add(curve(runs, id, metric));
            }
            if (curves.stream().allMatch(c -> c.x().length == 0)) {
                throw new DmlException("None of these runs recorded " + metric + ".",
                        "Train with --validation 0.2 to record val_loss and val_accuracy, or"
                        + " compare --metric loss.");
            }
            List<String> header = new ArrayList<>(List.of("setting"));
            header.addAll(ids);
            return new RunViews.Comparison(metric, metric.equals("loss") ? "step" : "epoch",
                    curves, header, differing(settings));
        }
    }

    private static RunViews.Curve curve(Runs runs, String id, String metric) {
        boolean steps = metric.equals("loss");
        Table t = steps ? runs.metrics(id) : runs.epochMetrics(id);
        String column = switch (metric) {
            case "val_loss" -> "validation_loss";
            case "val_accuracy" -> "validation_accuracy";
            default -> metric;
        };
        NumericColumn<?> x = t.numberColumn(steps ? "step" : "epoch");
        DoubleColumn y = t.doubleColumn(column);
        List<double[]> points = new ArrayList<>();
        for (int i = 0; i < t.rowCount(); i++) {
            if (!y.isMissing(i)) {
                points.add(new double[] {x.getDouble(i), y.getDouble(i)});
            }
        }
        return new RunViews.Curve(id, points.stream().mapToDouble(p -> p[0]).toArray(),
                points.stream().mapToDouble(p -> p[1]).toArray());
    }

    /** Each setting whose value is not the same in every run: its name, then each value. */
    private static List<List<String>> differing(List<Map<String, String>> settings) {
        Set<String> names = new LinkedHashSet<>();
        settings.forEach(s -> names.addAll(s.keySet()));
        List<List<String>> out = new ArrayList<>();
        for (String name : names) {
            List<String> row = new ArrayList<>(List.of(name));
            settings.forEach(s -> row.add(s.getOrDefault(name, "-")));
            if (row.stream().skip(1).distinct().count() > 1) {
                out.add(row);
            }
        }
        return out;
    }
}

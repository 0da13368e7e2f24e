package dev.dml.ray.data;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

/**
 * What training needs to know about worker-read files before any worker starts, learnt in a
 * streaming pass in the kernel, one unit (row group or record batch) at a time, so the kernel
 * never holds more than one unit's selected columns: the class names of a text label, the
 * categories of text features, the validation of every row, the number of classes and the
 * features' means and standard deviations. The results equal those {@link LabelClasses},
 * {@link FeatureVocabulary}, {@link TableValidator} and {@link FeatureStats} give on the whole
 * table at once. With a text label or text features it takes two passes (the second needs the
 * categories the first learnt); otherwise one. The same {@link DataFiles} remember their scans,
 * so the variants of a spec ({@code %dml plan}'s probes, {@code %dml scale}'s sizes) scan once.
 *
 * @param columns the selection with its class names and vocabulary learnt
 * @param stats the features' statistics
 * @param classes the number of classes, as {@link TableValidator#validate} counts them; 0 for
 *     regression
 * @param rows the rows read
 */
public record FileScan(ColumnSelection columns, FeatureStats stats, int classes, long rows) {

    /**
     * Scans the files, or returns the scan these files already made for this selection.
     *
     * @param files the files
     * @param selection the feature and label columns, as the user gave them
     * @return what the files hold
     */
    public static FileScan of(DataFiles files, ColumnSelection selection) {
        return files.scan(selection, () -> scan(files, selection));
    }

    private static FileScan scan(DataFiles files, ColumnSelection selection) {
        int units = files.units().size();
        List<String> wanted = new ArrayList<>(selection.features());
        wanted.add(selection.label());
        ColumnSelection columns = selection;
        Table first = files.read(0, wanted);
        boolean names = columns.labelKind() == LabelKind.CLASSES && columns.classNames().isEmpty()
                && LabelClasses.holdsNames(first, columns.label());
        List<String> text = new ArrayList<>();
        if (columns.vocabulary().isEmpty()) {
            for (String f : columns.features()) {
                if (first.containsColumn(f) && FeatureVocabulary.isText(first.column(f))) {
                    text.add(f);
                }
            }
        }
        if (names || !text.isEmpty()) {
            TreeSet<String> classNames = new TreeSet<>();
            Map<String, Map<String, Integer>> counts = new LinkedHashMap<>();
            text.forEach(f -> counts.put(f, new HashMap<>()));
            for (int u = 0; u < units; u++) {
                Table t = u == 0 ? first : files.read(u, wanted);
                if (names) {
                    classNames.addAll(LabelClasses.learn(t, columns.label()));
                }
                for (String f : text) {
                    FeatureVocabulary.counts((StringColumn) t.column(f))
                            .forEach((k, c) -> counts.get(f).merge(k, c, Integer::sum));
                }
            }
            if (names) {
                columns = columns.withClassNames(List.copyOf(classNames));
            }
            if (!text.isEmpty()) {
                columns = columns.withVocabulary(FeatureVocabulary.fromCounts(counts,
                        FeatureVocabulary.DEFAULT_EMBED_ABOVE));
            }
        }
        FeatureStats.Moments moments = new FeatureStats.Moments(columns);
        int classes = 0;
        long rows = 0;
        for (int u = 0; u < units; u++) {
            Table t = u == 0 ? first : files.read(u, wanted);
            classes = Math.max(classes, TableValidator.validate(t, columns));
            moments.add(t);
            rows += t.rowCount();
        }
        if (names) {
            classes = columns.classNames().size();
        }
        return new FileScan(columns, moments.stats(), classes, rows);
    }
}

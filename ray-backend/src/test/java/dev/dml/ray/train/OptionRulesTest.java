package dev.dml.ray.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.OptionRules.Facts;
import dev.dml.ray.train.OptionRules.Rule;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every rule of {@link OptionRuleTable} refuses an option set that breaks it, first of its
 * point, in a message that names both of its options.
 */
class OptionRulesTest {

    private static final String STAGED = "--strategy model --stages 2 ";

    /** One option set per rule that breaks it; a rule added without one fails the test. */
    private static final Map<String, Facts> EXAMPLES = Map.ofEntries(
            Map.entry("checkpoints", facts("--checkpoint-every 50")),
            Map.entry("validation-files", facts("").withValidation(0.2, false)),
            Map.entry("stratify-files", facts("--stratify true")),
            Map.entry("mf-files", facts("--model mf")),
            Map.entry("embed-above-files", facts("--embed-above 10")),
            Map.entry("data-cache-table", facts("--data-cache-mb 100")),
            Map.entry("hidden-logistic", facts("--model logistic --hidden 8")),
            Map.entry("image-cnn", facts("--image 28x28")),
            Map.entry("accumulate-staged", facts(STAGED + "--accumulate 2")),
            Map.entry("compress-staged", facts(STAGED + "--compress fp16")),
            Map.entry("elastic-staged", facts(STAGED + "--workers 2:4")),
            Map.entry("workers-staged", facts(STAGED + "--workers 3")),
            Map.entry("compress-one-worker", facts("--workers 1 --compress fp16")),
            Map.entry("bucket-mb-strategy", facts(STAGED + "--bucket-mb 25")),
            Map.entry("bucket-mb-workers", facts("--workers 1 --bucket-mb 25")),
            Map.entry("bucket-mb-compress", facts("--workers 2 --bucket-mb 25 --compress fp16")),
            Map.entry("bucket-mb-transport", facts("--workers 2 --bucket-mb 25 --transport ray")),
            Map.entry("ps-sync", facts("--workers 2 --ps 1")),
            Map.entry("sync-strategy", facts(STAGED + "--sync async")),
            Map.entry("sync-workers", facts("--workers 1 --sync async")),
            Map.entry("sync-elastic", facts("--workers 2:4 --sync async")),
            Map.entry("sync-compress", facts("--workers 2 --sync async --compress fp16")),
            Map.entry("sync-bucket-mb", facts("--workers 2 --sync async --bucket-mb 25")),
            Map.entry("sync-accumulate", facts("--workers 2 --sync async --accumulate 2")),
            Map.entry("sync-ps", facts("--workers 2 --sync async --ps 3")),
            Map.entry("shard-optimizer-strategy", facts(STAGED + "--shard-optimizer true")),
            Map.entry("shard-optimizer-workers", facts("--workers 1 --shard-optimizer true")),
            Map.entry("shard-optimizer-sync",
                    facts("--workers 2 --sync async --shard-optimizer true")),
            Map.entry("shard-optimizer-compress",
                    facts("--workers 2 --compress fp16 --shard-optimizer true")),
            Map.entry("shard-optimizer-bucket-mb",
                    facts("--workers 2 --bucket-mb 25 --shard-optimizer true")),
            Map.entry("shard-optimizer-gpus",
                    facts("--workers 2 --gpus-per-worker 1 --shard-optimizer true")),
            Map.entry("precision-block",
                    facts("--precision fp16").withFamily(ModelSpec.Family.CUSTOM)),
            Map.entry("precision-mf", facts("--precision fp16 --model mf")),
            Map.entry("precision-gpus", facts("--precision fp16")),
            Map.entry("precision-strategy",
                    facts(STAGED + "--precision fp16 --gpus-per-worker 1")),
            Map.entry("precision-compress",
                    facts("--precision fp16 --gpus-per-worker 1 --workers 2 --compress fp16")),
            Map.entry("early-stop-validation", facts("--early-stop 3")),
            Map.entry("clip-norm-staged", facts(STAGED).withClipNorm(1f)));

    @Test
    void everyRuleHasAnExample() {
        var ids = OptionRuleTable.RULES.stream().map(Rule::id)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(OptionRuleTable.RULES.size(), ids.size(), "rule ids are unique");
        assertEquals(ids, new TreeSet<>(EXAMPLES.keySet()));
        assertEquals(EXAMPLES.size(), OptionRuleTable.RULES.size());
    }

    @Test
    void eachRuleRefusesItsExampleNamingBothOptions() {
        for (Rule rule : OptionRuleTable.RULES) {
            Facts f = EXAMPLES.get(rule.id());
            DmlException e = assertThrows(DmlException.class,
                    () -> OptionRules.check(rule.point(), f), rule.id());
            // the rule itself refuses, not an earlier one of its point
            assertEquals(rule.refusal(f).getMessage(), e.getMessage(), rule.id());
            String text = e.whatTemplate() + "\n" + e.hintTemplate();
            assertTrue(names(text, rule.option(), f), rule.id() + " names " + rule.option()
                    + ": " + text);
            assertTrue(names(text, rule.other(), f), rule.id() + " names " + rule.other()
                    + ": " + text);
        }
    }

    @Test
    void optionsThatFitPassEveryPoint() {
        Facts f = facts("--workers 2 --sync async --ps 2 --checkpoint-every 50"
                + " --checkpoint-dir cp");
        for (OptionRules.Point p : OptionRules.Point.values()) {
            OptionRules.check(p, f);
        }
    }

    /**
     * Whether a message names an option: as a template ({@code {sync}}, {@code {sync=async}}),
     * or by the value the user gave it (the strategy as "the strategy model{...}", a family as
     * "an mf model").
     */
    private static boolean names(String text, String option, Facts f) {
        if (text.contains("{" + option + "}") || text.contains("{" + option + "=")) {
            return true;
        }
        Option<?> o = option(option);
        if (!f.options().isSet(o)) {
            return false;
        }
        String word = format(o, f.options());
        return text.contains("the strategy " + word + "{{") || text.contains(word + " model");
    }

    private static <T> String format(Option<T> o, OptionValues v) {
        return o.type().format(v.get(o));
    }

    private static Option<?> option(String name) {
        return TrainOptions.ALL.stream().filter(o -> o.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no option " + name));
    }

    /** The facts of options written as in a cell, with the strategy they resolve to. */
    private static Facts facts(String cell) {
        OptionValues v = OptionValues.empty();
        String[] words = cell.isBlank() ? new String[0] : cell.strip().split(" +");
        for (int i = 0; i < words.length; i += 2) {
            v = with(v, option(words[i].substring(2)), words[i + 1]);
        }
        Strategy s = StrategyOptions.resolve(null, v);
        int workers = s instanceof Strategy.Staged st ? st.replicas() * st.stages()
                : v.get(TrainOptions.WORKERS).max();
        return Facts.of(v).withStrategy(s, workers);
    }

    private static <T> OptionValues with(OptionValues v, Option<T> o, String text) {
        return v.with(o, o.parse(text));
    }
}

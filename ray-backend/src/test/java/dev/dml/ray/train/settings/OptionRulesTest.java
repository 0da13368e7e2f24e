package dev.dml.ray.train.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dml.DmlException;
import dev.dml.options.Option;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.train.settings.OptionRules.Facts;
import dev.dml.ray.train.settings.OptionRules.Rule;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every rule of {@link OptionRuleTable} refuses an option set that breaks it, first of its
 * point, in a message that names both of its options.
 */
class OptionRulesTest {

    /**
     * One option set per rule that breaks it, as a cell would write it; a rule added without one
     * fails the test. STAGED stands for a model strategy of two stages.
     */
    private static final String CELLS = """
            checkpoints: --checkpoint-every 50
            strategy-given: --strategy pipeline
            stages-given: --stages 2
            microbatches-given: --microbatches 8
            replicas-given: --replicas 2
            schedule-given: --schedule 1f1b
            balance-given: --balance time
            staged-options-data: --stages 2
            microbatches-model: --strategy model --microbatches 8
            replicas-hybrid: --strategy pipeline --replicas 2
            validation-files:
            stratify-files: --stratify true
            mf-files: --model mf
            embed-above-files: --embed-above 10
            data-cache-table: --data-cache-mb 100
            hidden-logistic: --model logistic --hidden 8
            image-cnn: --image 28x28
            accumulate-staged: STAGED --accumulate 2
            compress-staged: STAGED --compress fp16
            elastic-staged: STAGED --workers 2:4
            workers-staged: STAGED --workers 3
            compress-one-worker: --workers 1 --compress fp16
            bucket-mb-strategy: STAGED --bucket-mb 25
            bucket-mb-workers: --workers 1 --bucket-mb 25
            bucket-mb-compress: --workers 2 --bucket-mb 25 --compress fp16
            bucket-mb-transport: --workers 2 --bucket-mb 25 --transport ray
            ps-sync: --workers 2 --ps 1
            sync-strategy: STAGED --sync async
            sync-workers: --workers 1 --sync async
            sync-elastic: --workers 2:4 --sync async
            sync-compress: --workers 2 --sync async --compress fp16
            sync-bucket-mb: --workers 2 --sync async --bucket-mb 25
            sync-accumulate: --workers 2 --sync async --accumulate 2
            sync-ps: --workers 2 --sync async --ps 3
            shard-gradients-strategy: STAGED --shard-gradients true
            shard-gradients-workers: --workers 1 --shard-gradients true
            shard-gradients-sync: --workers 2 --sync async --shard-gradients true
            shard-gradients-compress: --workers 2 --compress fp16 --shard-gradients true
            shard-gradients-gpus: --workers 2 --gpus-per-worker 1 --shard-gradients true
            shard-gradients-shard-optimizer: --workers 2 --shard-gradients yes --shard-optimizer no
            shard-optimizer-strategy: STAGED --shard-optimizer true
            shard-optimizer-workers: --workers 1 --shard-optimizer true
            shard-optimizer-sync: --workers 2 --sync async --shard-optimizer true
            shard-optimizer-compress: --workers 2 --compress fp16 --shard-optimizer true
            shard-optimizer-bucket-mb: --workers 2 --bucket-mb 25 --shard-optimizer true
            shard-optimizer-gpus: --workers 2 --gpus-per-worker 1 --shard-optimizer true
            precision-block: --precision fp16
            precision-mf: --precision fp16 --model mf
            precision-gpus: --precision fp16
            precision-strategy: STAGED --precision fp16 --gpus-per-worker 1
            precision-compress: --precision fp16 --gpus-per-worker 1 --workers 2 --compress fp16
            early-stop-validation: --early-stop 3
            clip-norm-staged: STAGED
            """;

    /**
     * The facts no option sets: a fraction held out, the user's block, a clip norm; and, for
     * the rules "X-given", a strategy set whole in Java.
     */
    private static final Map<String, UnaryOperator<Facts>> RESOLVED = Map.of(
            "validation-files", f -> f.withValidation(0.2, false),
            "precision-block", f -> f.withFamily(ModelSpec.Family.CUSTOM),
            "clip-norm-staged", f -> f.withClipNorm(1f));

    private static final Map<String, Facts> EXAMPLES = CELLS.lines()
            .map(line -> line.split(":", 2))
            .collect(Collectors.toMap(p -> p[0], p -> RESOLVED.getOrDefault(p[0], f -> f)
                    .apply(facts(p[1].replace("STAGED", "--strategy model --stages 2")))
                    .withGiven(p[0].endsWith("-given") ? Strategy.model(2) : null)));

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
        if (option.equals("strategy") && f.given() != null) {
            return text.contains("the strategy set whole (" + f.given() + ")");
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

    /**
     * The facts of options written as in a cell, with the strategy they resolve to; options
     * that do not make a strategy (what the SHAPE rules refuse) keep data parallelism.
     */
    private static Facts facts(String cell) {
        OptionValues v = OptionValues.empty();
        String[] words = cell.isBlank() ? new String[0] : cell.strip().split(" +");
        for (int i = 0; i < words.length; i += 2) {
            v = with(v, option(words[i].substring(2)), words[i + 1]);
        }
        Strategy s = Strategy.data();
        try {
            s = StrategyOptions.resolve(null, v);
        } catch (DmlException e) {
            // an example of a SHAPE rule
        }
        int workers = s instanceof Strategy.Staged st ? st.replicas() * st.stages()
                : v.get(TrainOptions.WORKERS).max();
        return Facts.of(v).withStrategy(s, workers);
    }

    private static <T> OptionValues with(OptionValues v, Option<T> o, String text) {
        return v.with(o, o.parse(text));
    }
}

package dev.dml.ray.train.settings;

import dev.dml.DmlException;
import dev.dml.options.OptionValues;
import dev.dml.options.TrainOptions;
import dev.dml.ray.model.ModelSpec;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The rules that refuse one option because of another (or of the strategy or the worker count),
 * in one table: {@link OptionRuleTable#RULES}. {@link dev.dml.ray.train.SpecResolution} runs
 * the rules of each {@link Point} where it knows that point's facts, in the table's order, and
 * the first that applies refuses the job. Messages name options as templates ({@code {sync}}),
 * so they read in the words of the surface the user typed them on. Checks about the data (row
 * counts, label kinds, the model's shape) stay with the code that reads the data.
 */
public final class OptionRules {

    private OptionRules() {}

    /** Where in resolution a rule runs; each point knows more facts than the one before. */
    public enum Point {
        /** Before anything: only the options. */
        START,
        /** The strategy's options, before they are resolved into a strategy. */
        SHAPE,
        /** The job reads files on the workers ({@code --read-on-workers}). */
        FILES,
        /** The job trains on a table in the kernel. */
        TABLE,
        /** The model is built from the options: its family is known. */
        MODEL,
        /** The model is resolved; the strategy and the worker count are known. */
        STRATEGY,
        /** After the staged strategy's own checks of the model and the batch. */
        JOB,
        /** A half-float precision the engine supports; the family is the resolved model's. */
        PRECISION,
        /** The optimizer is resolved; whether the job validates is known. */
        UPDATE
    }

    /**
     * What resolution knows where a rule runs; a fact not known yet at a point holds its
     * default, and no rule of that point reads it.
     *
     * @param options the options
     * @param strategy the resolved strategy
     * @param workers the job's workers (the most, when elastic)
     * @param family the model's family, {@link ModelSpec.Family#CUSTOM} for the user's block
     * @param validationFraction the fraction of rows held out, 0 for none
     * @param validates whether the job has validation rows
     * @param clipNorm the optimizer's clip norm, 0 for none
     * @param given the strategy set whole in Java, or null
     */
    public record Facts(OptionValues options, Strategy strategy, int workers,
            ModelSpec.Family family, double validationFraction, boolean validates, float clipNorm,
            Strategy given) {

        /** The facts of the options alone: data parallelism, the family {@code --model} names. */
        public static Facts of(OptionValues v) {
            return new Facts(v, Strategy.data(), v.get(TrainOptions.WORKERS).max(),
                    ModelSpec.Family.of(v.get(TrainOptions.MODEL)), 0, false, 0f, null);
        }

        public Facts withStrategy(Strategy s, int w) {
            return new Facts(options, s, w, family, validationFraction, validates, clipNorm,
                    given);
        }

        public Facts withFamily(ModelSpec.Family f) {
            return new Facts(options, strategy, workers, f, validationFraction, validates,
                    clipNorm, given);
        }

        public Facts withValidation(double fraction, boolean validating) {
            return new Facts(options, strategy, workers, family, fraction, validating,
                    clipNorm, given);
        }

        public Facts withClipNorm(float norm) {
            return new Facts(options, strategy, workers, family, validationFraction, validates,
                    norm, given);
        }

        public Facts withGiven(Strategy g) {
            return new Facts(options, strategy, workers, family, validationFraction, validates,
                    clipNorm, g);
        }

        /** @return the staged strategy, or null for data parallelism */
        Strategy.Staged staged() {
            return strategy instanceof Strategy.Staged s ? s : null;
        }

        /** @return the staged strategy as message text */
        String strategyText() {
            return DmlException.literal(strategy);
        }
    }

    /**
     * One rule: the option it refuses ({@code option}, as its name in templates), the option,
     * strategy or worker count it refuses it because of ({@code other}), and its message.
     *
     * @param id a name unique in the table
     * @param point where in resolution it runs
     * @param option the option refused
     * @param other the option that refuses it
     * @param applies whether the facts break the rule
     * @param what the line on what is wrong (a template)
     * @param fix the line on how to fix it (a template)
     */
    record Rule(String id, Point point, String option, String other, Predicate<Facts> applies,
            Function<Facts, String> what, Function<Facts, String> fix) {

        /** @return the refusal of these facts */
        DmlException refusal(Facts f) {
            return new DmlException(what.apply(f), fix.apply(f));
        }
    }

    /**
     * Refuses the job with the first rule of {@code point} that its facts break.
     *
     * @param point where resolution is
     * @param f what it knows there
     * @throws DmlException the first broken rule's message
     */
    public static void check(Point point, Facts f) {
        check(OptionRuleTable.RULES, point, f);
    }

    static void check(List<Rule> rules, Point point, Facts f) {
        for (Rule r : rules) {
            if (r.point() == point && r.applies().test(f)) {
                throw r.refusal(f);
            }
        }
    }
}

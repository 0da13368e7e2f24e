package dev.dml.options;

import java.util.stream.Collectors;

/**
 * The reference page of {@code %dml train}'s options, written from their declarations: {@code
 * docs/train-options.md} is this page, and a test fails when the two differ.
 */
public final class OptionReference {

    private OptionReference() {}

    /**
     * Writes the page.
     *
     * @return Markdown, one table row per option
     */
    public static String markdown() {
        StringBuilder s = new StringBuilder();
        s.append("# `%dml train` options\n\n")
                .append("<!-- Generated from core/src/main/java/dev/dml/options/TrainOptions.java;")
                .append(" do not edit. -->\n\n")
                .append("Each option is written `--name value` on the `%dml train` line, or")
                .append(" `name: value` on its own line of a `%%dml train` cell (`_` may stand")
                .append(" for `-`). In Java, `TrainSpec.builder()` takes the same options:")
                .append(" `opt(TrainOptions.NAME, value)`, or the method the last column")
                .append(" names.\n\n")
                .append("| option | what it does | default | example | Java |\n")
                .append("| --- | --- | --- | --- | --- |\n");
        rows(s, TrainOptions.ALL);
        s.append("\n## `%dml plan` options\n\n")
                .append("`%dml plan` takes every option above, as the job it plans would run,")
                .append(" and these (`--workers N|MIN:MAX` names the sizes it compares). In")
                .append(" Java, `JobPlanner.builder()` takes them.\n\n")
                .append("| option | what it does | default | example | Java |\n")
                .append("| --- | --- | --- | --- | --- |\n");
        rows(s, PlanOptions.ALL);
        s.append("\n## `%dml scale` options\n\n")
                .append("`%dml scale` takes every option of `%dml train` as the job it runs at")
                .append(" each size (`--workers N|MIN:MAX` names the sizes; `--epochs` and")
                .append(" `--steps-per-epoch` default to 4 and 50 there), and this one.")
                .append(" In Java, `ScaleStudy.builder()` takes it.\n\n")
                .append("| option | what it does | default | example | Java |\n")
                .append("| --- | --- | --- | --- | --- |\n");
        rows(s, ScaleOptions.ALL);
        s.append("\n## `%dml tune` options\n\n")
                .append("`%dml tune` takes every option of `%dml train` as each trial would; one")
                .append(" written as a space (`--lr 1e-4..1e-2:log`, `--hidden 32|64,64`) varies")
                .append(" from trial to trial, and `--budget` / `--deadline` hold for the whole")
                .append(" sweep. In Java, `Dml.tune(spec)` takes them, with `optSpace(option,")
                .append(" space)` for a space. See docs/experiments.md.\n\n")
                .append("| option | what it does | default | example | Java |\n")
                .append("| --- | --- | --- | --- | --- |\n");
        rows(s, TuneOptions.ALL);
        s.append("\n## `%dml predict` options\n\n")
                .append("`%dml predict MODEL DATA` scores a table with a trained model on worker")
                .append(" actors and takes these options, besides `--cluster` and `--debug` as")
                .append(" above. In Java, `Dml.predict(model)` takes them.\n\n")
                .append("| option | what it does | default | example | Java |\n")
                .append("| --- | --- | --- | --- | --- |\n");
        rows(s, PredictOptions.ALL);
        return s.toString();
    }

    private static void rows(StringBuilder s, java.util.List<Option<?>> options) {
        for (Option<?> o : options) {
            s.append("| `").append(cell(o.usage())).append("` | ").append(cell(o.help()))
                    .append(" | ").append(cell(o.defaultText())).append(" | `")
                    .append(o.isSwitch() ? o.flag() : o.flag() + " " + cell(o.example()))
                    .append("` | ").append(o.target() == Option.Target.KERNEL
                            && o.javaTerm().equals(o.flag()) ? "notebook only"
                            : "`" + o.javaTerm() + "`").append(" |\n");
        }
    }

    private static String cell(String text) {
        return text.chars().mapToObj(c -> c == '|' ? "\\|" : String.valueOf((char) c))
                .collect(Collectors.joining());
    }
}

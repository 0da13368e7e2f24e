package dev.dml.magics;

import dev.dml.DmlException;
import dev.dml.Suggestions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/** {@code %dml help [command]}: lists the sub-commands, or shows one's usage and examples. */
final class HelpCommand extends NamedCommand {

    static final String NAME = "help";
    private static final String USAGE = "%dml help [command]";

    private final Supplier<List<DmlCommand>> commands;
    private final CommandArgs args = new CommandArgs(NAME,
            MagicsArgs.builder().optional("command").onlyKnownKeywords().onlyKnownFlags().build(),
            USAGE);

    HelpCommand(Supplier<List<DmlCommand>> commands) {
        super(NAME, "list the sub-commands, or show one's usage: %dml help version");
        this.commands = commands;
    }

    @Override
    public List<String> usage() {
        return List.of(USAGE, "", "Examples:", "  %dml help", "  %dml help version");
    }

    @Override
    public Object run(CommandContext context, List<String> words, String body) {
        Map<String, List<String>> parsed = args.parse(words);
        List<String> named = parsed.get("command");
        DisplayData data = named.isEmpty() ? overview() : details(named.get(0));
        context.display(data);
        return data;
    }

    private DisplayData overview() {
        List<DmlCommand> all = commands.get();
        int width = all.stream().mapToInt(c -> c.name().length()).max().orElse(0);
        StringBuilder text = new StringBuilder(
                "dml: distributed deep learning from this notebook\n\n");
        StringBuilder html = new StringBuilder("<table class=\"dml-help\">"
                + "<thead><tr><th style=\"text-align:left\">%dml</th>"
                + "<th style=\"text-align:left\">what it does</th></tr></thead><tbody>");
        for (DmlCommand c : all) {
            text.append("  %dml ").append(pad(c.name(), width)).append("  ")
                    .append(c.summary()).append('\n');
            html.append("<tr><td style=\"text-align:left\"><code>%dml ")
                    .append(Html.escape(c.name()))
                    .append("</code></td><td style=\"text-align:left\">")
                    .append(Html.escape(c.summary()))
                    .append("</td></tr>");
        }
        text.append("\n%dml help COMMAND shows a command's usage and examples.");
        html.append("</tbody></table><p><code>%dml help COMMAND</code>"
                + " shows a command's usage and examples.</p>");
        DisplayData data = new DisplayData(text.toString());
        data.putHTML(html.toString());
        return data;
    }

    private DisplayData details(String name) {
        DmlCommand command = commands.get().stream().filter(c -> c.name().equals(name))
                .findFirst().orElse(null);
        if (command == null) {
            List<String> names = new ArrayList<>();
            commands.get().forEach(c -> names.add(c.name()));
            String guess = Suggestions.closest(name, names)
                    .map(g -> "Did you mean '%dml help " + g + "'? ").orElse("");
            throw new DmlException("no sub-command '" + name + "' to show help for.",
                    guess + "Sub-commands: " + String.join(", ", names) + ".");
        }
        String text = "%dml " + command.name() + ": " + command.summary() + "\n\n"
                + String.join("\n", command.usage());
        DisplayData data = new DisplayData(text);
        data.putHTML("<pre class=\"dml-help\">" + Html.escape(text) + "</pre>");
        return data;
    }

    private static String pad(String s, int width) {
        return s + " ".repeat(width - s.length());
    }
}

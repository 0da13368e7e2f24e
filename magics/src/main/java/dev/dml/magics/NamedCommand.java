package dev.dml.magics;

import java.util.Objects;

/**
 * A sub-command whose name and {@code %dml help} line are fixed when it is made, so each
 * command states them once in its constructor.
 */
abstract class NamedCommand implements DmlCommand {

    private final String name;
    private final String summary;

    NamedCommand(String name, String summary) {
        this.name = Objects.requireNonNull(name, "name");
        this.summary = Objects.requireNonNull(summary, "summary");
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String summary() {
        return summary;
    }
}

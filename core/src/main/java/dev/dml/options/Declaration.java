package dev.dml.options;

import dev.dml.options.Option.Target;
import java.util.function.Function;

/** The parts of one declaration, in the order they read best. */
final class Declaration<T> {
    private final String name;
    private final ValueType<T> type;
    private final String metavar;
    private final String help;
    private final Target target;
    private String example;
    private String defaultText;
    private Function<OptionValues, T> defaultValue;
    private String javaTerm;

    Declaration(String name, ValueType<T> type, String metavar, String help, Target target) {
        this.name = name;
        this.type = type;
        this.metavar = metavar;
        this.help = help;
        this.target = target;
    }

    Declaration<T> example(String e) {
        this.example = e;
        return this;
    }

    Declaration<T> fixed(T value) {
        this.defaultText = type.format(value);
        this.defaultValue = v -> value;
        return this;
    }

    Declaration<T> derived(String text, Function<OptionValues, T> value) {
        this.defaultText = text;
        this.defaultValue = value;
        return this;
    }

    Declaration<T> noDefault(String text) {
        this.defaultText = text;
        return this;
    }

    Declaration<T> java(String term) {
        this.javaTerm = term;
        return this;
    }

    Option<T> done() {
        return new Option<>(name, type, metavar, help, defaultText, defaultValue, example,
                javaTerm, target);
    }
}

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

    /** An option the training spec takes as it is. */
    static <T> Declaration<T> spec(String name, ValueType<T> type, String metavar,
            String help) {
        return new Declaration<>(name, type, metavar, help, Target.SPEC);
    }

    /** An option the notebook side resolves. */
    static <T> Declaration<T> kernel(String name, ValueType<T> type, String metavar,
            String help) {
        return new Declaration<>(name, type, metavar, help, Target.KERNEL);
    }

    /** A choice option of the spec, its placeholder the enum's words: {@code pack|spread}. */
    static <E extends Enum<E> & Choice> Declaration<E> choice(String name, Class<E> type,
            String help) {
        return spec(name, ValueType.choice(type), Choice.metavar(type), help);
    }
}

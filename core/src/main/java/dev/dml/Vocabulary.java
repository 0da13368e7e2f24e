package dev.dml;

import java.util.ServiceLoader;

/**
 * The words a message uses for an option, by the surface where the user typed it: a flag in a
 * notebook cell, a builder method in Java. See {@link DmlException}.
 */
public enum Vocabulary {

    /** {@code %dml} magics in a notebook: {@code --batch-size 64}. */
    NOTEBOOK,
    /** The Java API: {@code optBatchSize(64)}. */
    JAVA;

    /**
     * Renders a template: {@code {name}} and {@code {name=value}} become this vocabulary's words
     * for the option called {@code name}; {@code {{} and {@code }}} are literal braces. A name
     * that is no option stays as written.
     *
     * @param template the text
     * @return the rendered text
     */
    public String render(String template) {
        StringBuilder out = new StringBuilder(template.length());
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if ((c == '{' || c == '}') && i + 1 < template.length()
                    && template.charAt(i + 1) == c) {
                out.append(c);
                i += 2;
                continue;
            }
            int close = c == '{' ? template.indexOf('}', i) : -1;
            String term = close < 0 ? null : template.substring(i + 1, close);
            String rendered = term == null ? null : term(term);
            if (rendered == null) {
                out.append(c);
                i++;
            } else {
                out.append(rendered);
                i = close + 1;
            }
        }
        return out.toString();
    }

    /** {@code name} or {@code name=value} in this vocabulary, or null when it names no option. */
    private String term(String term) {
        int eq = term.indexOf('=');
        String name = eq < 0 ? term : term.substring(0, eq);
        String value = eq < 0 ? null : term.substring(eq + 1);
        return Catalogue.WORDS.words(this, name, value);
    }

    /** The option catalogue's words, loaded once on first use. */
    private static final class Catalogue {
        static final OptionWords WORDS = ServiceLoader
                .load(OptionWords.class, OptionWords.class.getClassLoader())
                .findFirst()
                .orElse((vocabulary, name, value) -> null);
    }
}

package dev.dml.options;

import dev.dml.OptionWords;
import dev.dml.Vocabulary;

/** The catalogue's options in each surface's words; found by {@link Vocabulary} as a service. */
public final class CatalogueWords implements OptionWords {

    @Override
    public String words(Vocabulary vocabulary, String name, String value) {
        Option<?> o = PlanOptions.byName(name).orElse(null);
        if (o == null) {
            return null;
        }
        return vocabulary == Vocabulary.NOTEBOOK ? o.notebookWords(value) : o.javaWords(value);
    }
}

package dev.dml;

/**
 * Names options in the words of a surface, for {@link Vocabulary#render}. The option catalogue
 * provides the one implementation through {@link java.util.ServiceLoader}, so that the exception
 * root does not depend on the catalogue (which itself throws {@link DmlException}s).
 */
public interface OptionWords {

    /**
     * Returns an option in a surface's words.
     *
     * @param vocabulary the surface
     * @param name the option's name, e.g. {@code batch-size}
     * @param value a value to show with it, or null
     * @return e.g. {@code --batch-size 64}; null when no option has that name
     */
    String words(Vocabulary vocabulary, String name, String value);
}

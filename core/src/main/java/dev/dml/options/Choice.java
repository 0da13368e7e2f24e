package dev.dml.options;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * A value of a choice option, such as {@code --placement spread}: an enum constant that knows
 * the word a user types for it. {@link ValueType#choice(Class)} parses, checks and lists the
 * words, so the grammar, the help and the option reference all read them from the enum.
 */
public interface Choice {

    /**
     * Returns the constant's name; enums implement it.
     *
     * @return e.g. {@code ONE_F_ONE_B}
     */
    String name();

    /**
     * Returns the word a user types for this value; the constant's name in lower case unless
     * the enum says otherwise.
     *
     * @return e.g. {@code spread}
     */
    default String word() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Finds the constant a user's word stands for.
     *
     * @param type the enum
     * @param word the word, in any case and with spaces around it
     * @param <E> the enum
     * @return the constant, or null when no constant has that word
     */
    static <E extends Enum<E> & Choice> E of(Class<E> type, String word) {
        String w = word.strip().toLowerCase(Locale.ROOT);
        for (E e : type.getEnumConstants()) {
            if (e.word().equals(w)) {
                return e;
            }
        }
        return null;
    }

    /**
     * Lists an enum's words, in the order of its constants.
     *
     * @param type the enum
     * @return e.g. {@code [pack, spread]}
     */
    static List<String> words(Class<? extends Choice> type) {
        return Arrays.stream(type.getEnumConstants()).map(Choice::word).toList();
    }

    /**
     * Lists an enum's words as a placeholder shows them.
     *
     * @param type the enum
     * @return e.g. {@code pack|spread}
     */
    static String metavar(Class<? extends Choice> type) {
        return String.join("|", words(type));
    }
}

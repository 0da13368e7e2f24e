package dev.dml.options.setters;

import dev.dml.options.Option;

/**
 * A builder that sets options of a catalogue, one value at a time: the primitive under the
 * generated {@code optX} setters, which return the builder's own type {@code B}.
 *
 * @param <B> the builder's type, returned by every setter so calls chain
 */
public interface OptionSetter<B> {

    /**
     * Sets an option, as {@code --name value} in a cell does.
     *
     * @param option an option this builder takes
     * @param value its value, checked now
     * @param <T> the value's type
     * @return this builder
     */
    <T> B opt(Option<T> option, T value);

    /**
     * Sets an option by the word a cell would take after its flag, such as a choice's word.
     *
     * @param option an option this builder takes
     * @param word the word, such as {@code "topk:0.01"} for {@code --compress}; null unsets it
     * @param <T> the value's type
     * @return this builder
     */
    default <T> B optWord(Option<T> option, String word) {
        return opt(option, option.checkWord(word));
    }
}

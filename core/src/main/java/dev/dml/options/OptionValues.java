package dev.dml.options;

import java.io.NotSerializableException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The values given for some options; every other option reads as its declared default.
 * Immutable: {@link #with} returns a copy.
 *
 * <p>Crosses JVMs whole (the kernel to the driver, the driver to Ray's workers) in a stable
 * form, {@link OptionsForm}: each option by its catalogue and name, each value as a plain JDK
 * value or its text; reading it back yields the declared {@link Option} constants, so {@code
 * get(TrainOptions.BATCH_SIZE)} works on either side.
 */
public final class OptionValues implements Serializable {

    private static final long serialVersionUID = 1L;
    private static final OptionValues EMPTY = new OptionValues(Map.of());

    private final transient Map<Option<?>, Object> given;

    OptionValues(Map<Option<?>, Object> given) {
        this.given = Collections.unmodifiableMap(given);
    }

    /**
     * No value given: every option reads as its default.
     *
     * @return the empty values
     */
    public static OptionValues empty() {
        return EMPTY;
    }

    /**
     * Returns a copy with one more value, checked by the option's type.
     *
     * @param option the option
     * @param value its value
     * @param <T> the value's type
     * @return the copy
     * @throws dev.dml.DmlException when the value is not valid for the option
     */
    public <T> OptionValues with(Option<T> option, T value) {
        Map<Option<?>, Object> m = new LinkedHashMap<>(given);
        m.put(option, option.check(value));
        return new OptionValues(m);
    }

    /**
     * Returns a copy without a given value: the option reads as its default again.
     *
     * @param option the option
     * @return the copy
     */
    public OptionValues without(Option<?> option) {
        Map<Option<?>, Object> m = new LinkedHashMap<>(given);
        m.remove(option);
        return new OptionValues(m);
    }

    /**
     * Returns the value given, else the option's default for these values.
     *
     * @param option the option
     * @param <T> the value's type
     * @return the value, or null when neither was given nor has a default
     */
    @SuppressWarnings("unchecked")
    public <T> T get(Option<T> option) {
        Object v = given.get(option);
        return v != null ? (T) v : option.defaultFor(this);
    }

    /**
     * Tells whether a value was given for the option (not just defaulted).
     *
     * @param option the option
     * @return {@code true} when given
     */
    public boolean isSet(Option<?> option) {
        return given.containsKey(option);
    }

    /**
     * Returns the options that were given, in the order they were.
     *
     * @return the options
     */
    public Set<Option<?>> given() {
        return given.keySet();
    }

    /** Written as its stable form; the options' constants are not themselves serializable. */
    private Object writeReplace() throws ObjectStreamException {
        try {
            return new OptionsForm(given);
        } catch (IllegalArgumentException notCatalogued) {
            throw new NotSerializableException(notCatalogued.getMessage());
        }
    }

    /** Values are equal when the same options were given the same values. */
    @Override
    public boolean equals(Object o) {
        return o instanceof OptionValues v && given.equals(v.given);
    }

    @Override
    public int hashCode() {
        return given.hashCode();
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("{");
        given.forEach((o, v) -> s.append(s.length() > 1 ? ", " : "").append(o.name()).append('=')
                .append(v));
        return s.append('}').toString();
    }
}

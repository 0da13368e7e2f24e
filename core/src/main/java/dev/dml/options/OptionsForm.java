package dev.dml.options;

import java.io.InvalidObjectException;
import java.io.ObjectStreamException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stable form in which {@link OptionValues} cross JVMs, by Java serialization and by Ray's
 * serializer alike (a plain class of arrays; Ray's serializer rejects records). Each option is
 * its key ({@link OptionKeys}); each value is a JDK value as it is (text, number, switch, one of
 * an enum), a list as an {@link ArrayList}, or else (compression, schedules, worker ranges:
 * records) the option's own text, parsed back by its {@link ValueType}.
 */
final class OptionsForm implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String[] keys;
    private final Object[] values;
    /** Whether {@code values[i]} is the option's text, to parse on reading. */
    private final boolean[] texts;

    OptionsForm(Map<Option<?>, Object> given) {
        int n = given.size();
        keys = new String[n];
        values = new Object[n];
        texts = new boolean[n];
        int i = 0;
        for (Map.Entry<Option<?>, Object> e : given.entrySet()) {
            keys[i] = OptionKeys.keyOf(e.getKey());
            Object v = e.getValue();
            if (v instanceof List<?> l) {
                values[i] = new ArrayList<>(l);
            } else if (isPlain(v)) {
                values[i] = v;
            } else {
                values[i] = format(e.getKey(), v);
                texts[i] = true;
            }
            i++;
        }
    }

    private static boolean isPlain(Object v) {
        return v instanceof String || v instanceof Number || v instanceof Boolean
                || v instanceof Enum<?>;
    }

    @SuppressWarnings("unchecked")
    private static <T> String format(Option<T> option, Object value) {
        return option.type().format((T) value);
    }

    /** The values, each under the option constant its key names in this JVM. */
    private Object readResolve() throws ObjectStreamException {
        Map<Option<?>, Object> given = new LinkedHashMap<>();
        for (int i = 0; i < keys.length; i++) {
            Option<?> option = OptionKeys.byKey(keys[i]);
            if (option == null) {
                throw new InvalidObjectException("Option values name '" + keys[i] + "', an"
                        + " option this dml does not declare: run one dml version in the"
                        + " kernel, the driver and the workers.");
            }
            given.put(option, value(option, values[i], texts[i]));
        }
        return new OptionValues(given);
    }

    @SuppressWarnings("unchecked")
    private static <T> T value(Option<T> option, Object stored, boolean text)
            throws InvalidObjectException {
        T v;
        try {
            v = text ? option.parse((String) stored) : stored instanceof List<?> l
                    ? (T) List.copyOf(l) : (T) stored;
        } catch (RuntimeException e) {
            throw new InvalidObjectException("Option values hold " + option.flag() + " as '"
                    + stored + "', which it does not take: " + e.getMessage());
        }
        if (!option.type().isValid(v)) {
            throw new InvalidObjectException("Option values hold " + option.flag() + " as '"
                    + stored + "', which it does not take.");
        }
        return v;
    }
}

package dev.dml.options;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stable key of every declared option: its catalogue and its name, such as {@code
 * train:batch-size} or {@code predict:batch-size} (a name alone is ambiguous). Read from the
 * catalogues' constants, so a new option has its key without a list to keep.
 */
final class OptionKeys {

    /** The catalogues, in the order an option declared in several takes its key from. */
    private static final Map<String, Class<?>> CATALOGUES = catalogues();
    private static final Map<String, Option<?>> BY_KEY = new HashMap<>();
    private static final Map<Option<?>, String> KEYS = new IdentityHashMap<>();

    static {
        CATALOGUES.forEach((name, catalogue) -> {
            for (Field f : catalogue.getFields()) {
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == Option.class) {
                    add(name, (Option<?>) read(f));
                }
            }
        });
    }

    private OptionKeys() {}

    private static Map<String, Class<?>> catalogues() {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        m.put("train", TrainOptions.class);
        m.put("predict", PredictOptions.class);
        m.put("plan", PlanOptions.class);
        m.put("scale", ScaleOptions.class);
        m.put("tune", TuneOptions.class);
        return m;
    }

    private static Object read(Field f) {
        try {
            return f.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("Option constant " + f + " cannot be read", e);
        }
    }

    private static void add(String catalogue, Option<?> option) {
        if (KEYS.containsKey(option)) {
            return; // declared once, gathered again (TrainOptions reads its groups' constants)
        }
        String key = catalogue + ":" + option.name();
        Option<?> other = BY_KEY.putIfAbsent(key, option);
        if (other != null) {
            throw new IllegalStateException("Two options of " + catalogue + " are named "
                    + option.flag() + "; give one another name.");
        }
        KEYS.put(option, key);
    }

    /**
     * The key of a declared option.
     *
     * @throws IllegalArgumentException for an option no catalogue declares
     */
    static String keyOf(Option<?> option) {
        String key = KEYS.get(option);
        if (key == null) {
            throw new IllegalArgumentException("Option " + option.flag() + " is declared in no"
                    + " catalogue (TrainOptions, PredictOptions, PlanOptions, ScaleOptions,"
                    + " TuneOptions), so its value cannot leave this JVM.");
        }
        return key;
    }

    /** The option a key names, or null when this JVM's dml declares none by that key. */
    static Option<?> byKey(String key) {
        return BY_KEY.get(key);
    }
}

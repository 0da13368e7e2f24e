package dev.dml.ray.cluster;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.util.Map;

/**
 * Java deserialization of bytes that crossed a process boundary (the driver's channel, Ray, a
 * saved model's file), through one filter: dml's own classes, the JDK's values and collections
 * they are made of, and arrays of those; any other class is refused before it is instantiated,
 * so the bytes cannot drive deserialization into a gadget of some library on the class path.
 *
 * <p>The stream's own length bounds the rest: no array may have more elements than the stream
 * has bytes (each element takes at least one), so a forged length cannot allocate gigabytes;
 * nesting is capped at {@value #MAX_DEPTH} and references at {@value #MAX_REFERENCES}.
 */
public final class Payloads {

    /** The deepest nesting of objects a payload may have. */
    static final int MAX_DEPTH = 100;
    /** The most object references a payload may hold. */
    static final long MAX_REFERENCES = 10_000_000;

    private Payloads() {}

    /**
     * Enums that moved to core's options, by their old names: models and checkpoints saved
     * before the move name them so, and an enum is read by its constants' names, which stayed.
     */
    private static final Map<String, String> MOVED = Map.of(
            "dev.dml.ray.model.OptimizerSpec$Kind", "dev.dml.options.OptimizerKind",
            "dev.dml.ray.train.Strategy$Kind", "dev.dml.options.StrategyKind",
            "dev.dml.ray.train.Strategy$Schedule", "dev.dml.options.PipelineSchedule",
            "dev.dml.ray.train.Strategy$Balance", "dev.dml.options.StageBalance",
            "dev.dml.ray.collective.TransportKind", "dev.dml.options.TransportKind");

    /**
     * Classes that moved package, by their old package's name and their new one: results saved
     * before the move name them so. Java reads a class whose simple name and fields match.
     */
    private static final Map<String, String> RENAMED = Map.of(
            "dev.dml.ray.train.TrainResult", "dev.dml.ray.train.result.TrainResult",
            "dev.dml.ray.train.Strategy", "dev.dml.ray.train.settings.Strategy");

    /**
     * Reads one object, looking classes up in the thread's context class loader first.
     *
     * @param bytes the bytes
     * @param offset where the stream starts
     * @param length its length
     * @return the object
     * @throws InvalidClassException naming the class, array or nesting the filter refused
     * @throws IOException when the bytes are not a serialization stream
     * @throws ClassNotFoundException when a class is not on this JVM's class path
     */
    public static Object read(byte[] bytes, int offset, int length)
            throws IOException, ClassNotFoundException {
        Filter filter = new Filter(length);
        try (ObjectInputStream ois = new ObjectInputStream(
                new ByteArrayInputStream(bytes, offset, length)) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc)
                    throws IOException, ClassNotFoundException {
                String name = renamed(desc.getName());
                ClassLoader cl = Thread.currentThread().getContextClassLoader();
                if (cl != null) {
                    try {
                        return Class.forName(name, false, cl);
                    } catch (ClassNotFoundException e) {
                        // fall back to the default lookup
                    }
                }
                return name.equals(desc.getName()) ? super.resolveClass(desc)
                        : Class.forName(name, false, Payloads.class.getClassLoader());
            }

            @Override
            protected ObjectStreamClass readClassDescriptor()
                    throws IOException, ClassNotFoundException {
                ObjectStreamClass read = super.readClassDescriptor();
                String moved = MOVED.get(read.getName());
                // an enum's stream holds no fields, only its constants' names: this JVM's
                // descriptor of the enum it became reads them
                return moved == null ? read : ObjectStreamClass.lookup(
                        Class.forName(moved, false, Payloads.class.getClassLoader()));
            }
        }) {
            ois.setObjectInputFilter(filter);
            return ois.readObject();
        } catch (InvalidClassException e) {
            if (filter.refused == null) {
                throw e;
            }
            InvalidClassException named = new InvalidClassException("refused "
                    + filter.refused + " (" + e.getMessage() + ")");
            named.initCause(e);
            throw named;
        }
    }

    /**
     * Reads one object from all of {@code bytes}.
     *
     * @param bytes the bytes
     * @return the object
     * @throws IOException when they are not a stream, or the filter refused something in it
     * @throws ClassNotFoundException when a class is not on this JVM's class path
     */
    public static Object read(byte[] bytes) throws IOException, ClassNotFoundException {
        return read(bytes, 0, bytes.length);
    }

    /** A class's name now: its own, or the new name of a class (or nested class) that moved. */
    static String renamed(String name) {
        int nested = name.indexOf('$');
        String outer = nested < 0 ? name : name.substring(0, nested);
        String now = RENAMED.get(outer);
        return now == null ? name : now + name.substring(outer.length());
    }

    /** Whether a payload may hold instances of {@code c} (or arrays of them). */
    static boolean allowed(Class<?> c) {
        String pkg = c.getPackageName();
        boolean jdk = pkg.equals("java.lang") || pkg.equals("java.util")
                || pkg.equals("java.util.concurrent") || pkg.equals("java.time")
                || pkg.equals("java.math");
        return jdk || pkg.equals("dev.dml") || pkg.startsWith("dev.dml.");
    }

    /** The filter of one stream; it remembers what it refused, for the message. */
    private static final class Filter implements ObjectInputFilter {
        private final long length;
        private String refused;

        Filter(long length) {
            this.length = length;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            String why = why(info);
            if (why == null) {
                return info.serialClass() == null ? Status.UNDECIDED : Status.ALLOWED;
            }
            refused = why;
            return Status.REJECTED;
        }

        private String why(FilterInfo info) {
            if (info.depth() > MAX_DEPTH) {
                return "objects nested deeper than " + MAX_DEPTH;
            }
            if (info.references() > MAX_REFERENCES) {
                return "more than " + MAX_REFERENCES + " object references";
            }
            if (info.arrayLength() > length) {
                return "an array of " + info.arrayLength() + " elements in a stream of "
                        + length + " bytes";
            }
            Class<?> c = info.serialClass();
            while (c != null && c.isArray()) {
                c = c.getComponentType();
            }
            if (c == null || c.isPrimitive() || allowed(c)) {
                return null;
            }
            return "class " + c.getName() + ", which is not one of dml's or the JDK's values";
        }
    }
}

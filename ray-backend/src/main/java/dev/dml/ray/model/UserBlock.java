package dev.dml.ray.model;

import dev.dml.DmlException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@link BlockFactory} as bytes, so that it crosses Ray: the factory Java-serialized, and the
 * bytecode of the notebook cells' classes and of the jars added to the kernel when the
 * factory's class is one of them (the workers' class path does not have them). Each JVM reads it
 * back once, through a class loader that defines those classes.
 */
public final class UserBlock implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String name;
    private final String className;
    private final byte[] factory;
    private final HashMap<String, byte[]> classes;
    private transient BlockFactory opened;

    private UserBlock(String name, String className, byte[] factory,
            HashMap<String, byte[]> classes) {
        this.name = name;
        this.className = className;
        this.factory = factory;
        this.classes = classes;
    }

    /**
     * Captures a factory.
     *
     * @param name what the user calls it, e.g. the variable {@code net}
     * @param factory the factory
     * @param classes bytecode by binary class name of the classes the workers lack (a notebook
     *     cell's); empty when the factory's classes are on dml's class path
     * @return the captured factory
     * @throws DmlException when the factory cannot be serialized
     */
    public static UserBlock of(String name, BlockFactory factory, Map<String, byte[]> classes) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(factory);
        } catch (IOException e) {
            throw new DmlException("The block factory '" + DmlException.literal(name) + "' ("
                    + DmlException.literal(factory.getClass().getName()) + ") cannot be sent to"
                    + " the workers: " + DmlException.literal(e) + ".", "Keep only sizes and"
                    + " settings in its fields (no blocks, tables or NDArrays), and build the"
                    + " layers inside newBlock.", e);
        }
        return new UserBlock(name, factory.getClass().getName(), bytes.toByteArray(),
                new HashMap<>(classes));
    }

    /** @return what the user calls the factory */
    public String name() {
        return name;
    }

    /**
     * Returns the factory, read back in this JVM on the first call.
     *
     * @return the factory
     * @throws DmlException when this JVM cannot load its classes
     */
    public synchronized BlockFactory factory() {
        if (opened == null) {
            ClassLoader parent = BlockFactory.class.getClassLoader();
            ClassLoader loader = classes.isEmpty() ? parent : new CellClasses(classes, parent);
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(factory)) {
                @Override
                protected Class<?> resolveClass(ObjectStreamClass desc)
                        throws IOException, ClassNotFoundException {
                    return Class.forName(desc.getName(), false, loader);
                }
            }) {
                opened = (BlockFactory) in.readObject();
            } catch (IOException | ClassNotFoundException | LinkageError e) {
                throw new DmlException("The block factory '" + DmlException.literal(name)
                        + "' (" + DmlException.literal(className) + ") cannot be loaded here: "
                        + DmlException.literal(e) + ".", "Define its class in a notebook cell,"
                        + " in a jar added with %jars or %maven, or on dml's class path; a"
                        + " resource file of such a jar does not travel with the job.", e);
            }
        }
        return opened;
    }

    @Override
    public String toString() {
        return "block " + name + " (" + className + ")";
    }

    /** Defines the cells' classes from their bytecode, asking the parent for the rest. */
    private static final class CellClasses extends ClassLoader {
        private final Map<String, byte[]> classes;

        CellClasses(Map<String, byte[]> classes, ClassLoader parent) {
            super("dml-cell-classes", parent);
            this.classes = classes;
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            byte[] b = classes.get(name);
            if (b == null) {
                throw new ClassNotFoundException(name);
            }
            return defineClass(name, b, 0, b.length);
        }
    }
}

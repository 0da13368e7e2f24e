package dev.dml.options.setters;

import dev.dml.options.Option;
import java.io.IOException;
import java.io.Writer;
import java.lang.reflect.Field;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.tools.Diagnostic;

/**
 * Writes the interface {@link GenerateSetters} asks for: for each option of the catalogue whose
 * Java words are a setter name ({@code optBatchSize}) and that the builder does not write by
 * hand, a default method that sets it through {@link OptionSetter#opt} (numbers and switches) or
 * {@link OptionSetter#optWord} (choices and other words), with the declaration's help as its
 * Javadoc. The catalogue's classes are read as they run, so the setters follow the declarations.
 */
@SupportedAnnotationTypes("dev.dml.options.setters.GenerateSetters")
public final class SetterProcessor extends AbstractProcessor {

    private static final Map<Type, String> PRIMITIVES = Map.of(Integer.class, "int",
            Long.class, "long", Double.class, "double", Boolean.class, "boolean");

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
        for (Element e : round.getElementsAnnotatedWith(GenerateSetters.class)) {
            TypeElement builder = (TypeElement) e;
            try {
                write(builder);
            } catch (IOException | ReflectiveOperationException | RuntimeException ex) {
                processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR,
                        "cannot write the setters of " + builder + ": " + ex, builder);
            }
        }
        return true;
    }

    private void write(TypeElement builder) throws IOException, ReflectiveOperationException {
        String catalogue = null;
        String name = null;
        for (AnnotationMirror m : builder.getAnnotationMirrors()) {
            if (!m.getAnnotationType().toString().equals(GenerateSetters.class.getName())) {
                continue;
            }
            for (Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> v
                    : m.getElementValues().entrySet()) {
                String key = v.getKey().getSimpleName().toString();
                if (key.equals("catalogue")) {
                    TypeElement t = (TypeElement) ((DeclaredType) v.getValue().getValue())
                            .asElement();
                    catalogue = processingEnv.getElementUtils().getBinaryName(t).toString();
                } else if (key.equals("name")) {
                    name = (String) v.getValue().getValue();
                }
            }
        }
        String pkg = processingEnv.getElementUtils().getPackageOf(builder).getQualifiedName()
                .toString();
        StringBuilder out = new StringBuilder();
        out.append("package ").append(pkg).append(";\n\n")
                .append("/**\n * The {@code optX} setters of {@link ")
                .append(builder.getQualifiedName()).append("}, one for each option of {@link ")
                .append(catalogue.replace('$', '.')).append("}\n * whose Java words name one;")
                .append(" written by dev.dml.options.setters.SetterProcessor from the\n")
                .append(" * declarations. DO NOT EDIT.\n *\n")
                .append(" */\n")
                .append("@javax.annotation.processing.Generated(\"")
                .append(SetterProcessor.class.getName()).append("\")\n")
                .append("public interface ").append(name)
                .append(" extends dev.dml.options.setters.OptionSetter<")
                .append(builder.getQualifiedName()).append("> {\n");
        Class<?> cat = Class.forName(catalogue, true, getClass().getClassLoader());
        Set<String> byHand = handWritten(builder);
        for (Object o : (List<?>) cat.getField("ALL").get(null)) {
            Option<?> option = (Option<?>) o;
            String setter = option.javaTerm();
            if (setter.matches("opt[A-Z][A-Za-z0-9]*") && !byHand.contains(setter)) {
                method(out, cat, option, builder.getQualifiedName().toString());
            }
        }
        out.append("}\n");
        try (Writer w = processingEnv.getFiler().createSourceFile(pkg + "." + name, builder)
                .openWriter()) {
            w.write(out.toString());
        }
    }

    private static void method(StringBuilder out, Class<?> cat, Option<?> option,
            String builder) throws ReflectiveOperationException {
        Field f = field(cat, option);
        Type value = ((ParameterizedType) f.getGenericType()).getActualTypeArguments()[0];
        String primitive = PRIMITIVES.get(value);
        String deflt = option.defaultText() == null ? ""
                : " (left out: " + javadoc(option.defaultText()) + ")";
        out.append("\n    /**\n     * Sets <code>").append(javadoc(option.usage()))
                .append("</code>: ").append(javadoc(option.help())).append(deflt)
                .append(".\n     *\n     * @param value ")
                .append(primitive == null ? "the word the flag takes, " : "")
                .append("e.g. <code>").append(javadoc(option.example()))
                .append("</code>\n     * @return this builder\n     */\n    default ")
                .append(builder).append(' ')
                .append(option.javaTerm()).append('(')
                .append(primitive == null ? "String" : primitive).append(" value) {\n")
                .append("        return ").append(primitive == null ? "optWord" : "opt")
                .append('(').append(cat.getCanonicalName()).append('.')
                .append(f.getName()).append(", value);\n    }\n");
    }

    /** The catalogue's constant that holds the option (its name may differ from the flag's). */
    private static Field field(Class<?> cat, Option<?> option)
            throws ReflectiveOperationException {
        for (Field f : cat.getFields()) {
            f.setAccessible(true); // declared in a group interface the catalogue gathers
            if (f.getType() == Option.class && f.get(null) == option) {
                return f;
            }
        }
        throw new NoSuchFieldException(cat.getName() + " has no constant for " + option.flag());
    }

    /** The methods the builder and its superclasses declare themselves. */
    private static Set<String> handWritten(TypeElement builder) {
        Set<String> names = new HashSet<>();
        TypeElement t = builder;
        while (t != null) {
            for (Element m : t.getEnclosedElements()) {
                if (m.getKind() == ElementKind.METHOD) {
                    names.add(m.getSimpleName().toString());
                }
            }
            TypeMirror up = t.getSuperclass();
            t = up.getKind() == TypeKind.DECLARED
                    ? (TypeElement) ((DeclaredType) up).asElement() : null;
        }
        return names;
    }

    /** Text safe inside a Javadoc comment. */
    private static String javadoc(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                .replace("@", "&#64;").replace("*/", "*&#47;").replace("{", "&#123;")
                .replace("}", "&#125;");
    }
}

package dev.dml.options.setters;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Asks {@link SetterProcessor} for an interface of {@code optX} setters, one for each option of
 * {@link #catalogue()} whose Java words ({@code .java("optBatchSize")}) name a setter the
 * annotated builder and its superclasses do not write themselves, each returning the builder's
 * own type (so a setter's signature is the one a hand-written setter would have). The builder
 * implements that interface and provides {@link OptionSetter#opt}.
 */
@Retention(RetentionPolicy.SOURCE)
@Target(ElementType.TYPE)
public @interface GenerateSetters {

    /**
     * The catalogue: a class whose public static {@code ALL} lists its options and whose public
     * static fields, named by each option's {@code constant()}, declare them.
     *
     * @return e.g. {@code TrainOptions.class}
     */
    Class<?> catalogue();

    /**
     * The simple name of the interface to write, in the builder's package.
     *
     * @return e.g. {@code "TrainSetters"}
     */
    String name();
}

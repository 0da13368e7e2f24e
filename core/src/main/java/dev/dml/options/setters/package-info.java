/**
 * The typed {@code optX} setters of the Java builders, derived from the option declarations
 * rather than written by hand: a builder names an option catalogue with {@link
 * dev.dml.options.setters.GenerateSetters}, and {@link dev.dml.options.setters.SetterProcessor}
 * writes an interface of default methods over the builder's {@link
 * dev.dml.options.setters.OptionSetter#opt} for each option whose Java words are a setter name.
 */
package dev.dml.options.setters;

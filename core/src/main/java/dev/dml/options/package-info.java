/**
 * The options of {@code %dml train}, each declared once ({@link dev.dml.options.TrainOptions}):
 * its flag, value type, default, help and Java words. The grammar, the help, the option
 * reference and the engine's spec builder all read the declarations.
 */
package dev.dml.options;

/**
 * The {@code %dml} magics as a JJava extension ({@link dev.dml.magics.DmlExtension}): the
 * grammar of {@code %dml train} ({@link dev.dml.magics.TrainGrammar}, read from the option
 * declarations in {@code dev.dml.options}), one {@link dev.dml.magics.DmlCommand} per
 * subcommand, and the session's jobs ({@link dev.dml.magics.Jobs}). It knows the engine only
 * through {@link dev.dml.magics.DmlBackend}, so it needs no Ray, DJL or JShell jar.
 */
package dev.dml.magics;

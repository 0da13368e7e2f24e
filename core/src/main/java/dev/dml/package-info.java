/**
 * What every dml module shares: the exception root {@link dev.dml.DmlException}, whose messages
 * speak the vocabulary of the surface the user typed on ({@link dev.dml.Vocabulary}),
 * {@link dev.dml.Closeables} for releasing many resources without leaking any, {@link
 * dev.dml.Suggestions} for "Did you mean" hints, and {@link dev.dml.CellThread}, through which
 * dml's commands tell the kernel they stop an interrupted cell by themselves. It depends on no
 * other dml package: the option catalogue names its options through the {@link
 * dev.dml.OptionWords} service.
 */
package dev.dml;

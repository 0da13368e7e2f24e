/**
 * What every dml module shares: the exception root {@link dev.dml.DmlException}, whose messages
 * speak the vocabulary of the surface the user typed on ({@link dev.dml.Vocabulary}), and
 * {@link dev.dml.Closeables} for releasing many resources without leaking any.
 */
package dev.dml;

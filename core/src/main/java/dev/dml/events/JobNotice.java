package dev.dml.events;


/**
 * Something the user must know about a running job that is not a failure: a {@code --resume}
 * that found no checkpoint, a checkpoint that could not be written. An event the driver sends
 * to the kernel, which shows it in the cell as one line.
 *
 * @param step the job's step when it happened
 * @param template the line; options are named as {@code {resume}} templates, rendered in the
 *     words of the surface that shows it ({@link dev.dml.Vocabulary})
 */
public record JobNotice(long step, String template) implements JobEvent {}

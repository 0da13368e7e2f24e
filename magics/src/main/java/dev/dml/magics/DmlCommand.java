package dev.dml.magics;

import java.util.List;

/**
 * One {@code %dml} sub-command, such as {@code help} or {@code train}. Each declares its own
 * arguments and documents itself for {@code %dml help}.
 */
public interface DmlCommand {

    /** The sub-command's name, as typed after {@code %dml}. */
    String name();

    /** One line for the {@code %dml help} list. */
    String summary();

    /** Usage lines and examples for {@code %dml help NAME}. */
    List<String> usage();

    /**
     * Runs the sub-command.
     *
     * @param context where output goes
     * @param args the words after the sub-command's name
     * @param body the cell body for {@code %%dml NAME}, or null for the line form
     * @return a value for the caller (kernels may ignore it)
     */
    Object run(CommandContext context, List<String> args, String body);
}

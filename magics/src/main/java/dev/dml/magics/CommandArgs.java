package dev.dml.magics;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.dflib.jjava.jupyter.kernel.magic.MagicArgsParseException;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/** A sub-command's argument schema; parse errors become one line that quotes the usage. */
final class CommandArgs {

    private final String command;
    private final MagicsArgs schema;
    private final String usage;

    CommandArgs(String command, MagicsArgs schema, String usage) {
        this.command = command;
        this.schema = schema;
        this.usage = usage;
    }

    /** Parses the words after the sub-command's name. */
    Map<String, List<String>> parse(List<String> args) {
        try {
            return schema.parse(new ArrayList<>(args));
        } catch (MagicArgsParseException e) {
            throw new DmlException("%dml " + command + ": " + e.getMessage(),
                    "Usage: " + usage);
        }
    }
}

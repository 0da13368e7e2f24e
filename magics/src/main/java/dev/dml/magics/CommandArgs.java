package dev.dml.magics;

import dev.dml.DmlException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.dflib.jjava.jupyter.kernel.magic.MagicArgsParseException;
import org.dflib.jjava.jupyter.kernel.magic.MagicsArgs;

/**
 * A sub-command's argument schema; parse errors become one line that quotes the usage.
 *
 * @param command the sub-command's name, as the error line starts
 * @param schema its arguments
 * @param usage its usage line, quoted by the error's hint
 */
record CommandArgs(String command, MagicsArgs schema, String usage) {

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

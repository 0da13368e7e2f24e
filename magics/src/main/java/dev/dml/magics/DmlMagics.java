package dev.dml.magics;

import dev.dml.CellThread;
import dev.dml.DmlException;
import dev.dml.Suggestions;
import dev.dml.Vocabulary;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.magic.CellMagic;
import org.dflib.jjava.jupyter.kernel.magic.LineMagic;

/**
 * The {@code %dml} line magic and {@code %%dml} cell magic: the first word picks a
 * {@link DmlCommand}, the rest is that command's arguments.
 */
public final class DmlMagics implements LineMagic<Object, BaseKernel>,
        CellMagic<Object, BaseKernel>, AutoCloseable {

    /** The name both magics are registered under. */
    public static final String MAGIC_NAME = "dml";

    private final Map<String, DmlCommand> commands = new LinkedHashMap<>();
    private DmlSession session;

    private DmlMagics() {
    }

    /** The sub-commands dml ships, in the order {@code %dml help} lists them. */
    public static DmlMagics standard() {
        DmlMagics magics = new DmlMagics();
        magics.add(new TrainCommand());
        magics.add(new PlanCommand());
        magics.add(new ScaleCommand());
        magics.add(new PredictCommand());
        magics.add(new StatusCommand());
        magics.add(new StopCommand());
        magics.add(new RunsCommand());
        magics.add(new CompareCommand());
        magics.add(new AttachCommand());
        magics.add(new TuneCommand());
        magics.add(new ClusterCommand());
        magics.add(new HelpCommand(magics::commands));
        magics.add(new VersionCommand());
        return magics;
    }

    /** Adds a sub-command; names are unique. */
    public DmlMagics add(DmlCommand command) {
        if (commands.putIfAbsent(command.name(), command) != null) {
            throw new IllegalArgumentException("a %dml " + command.name() + " command exists");
        }
        return this;
    }

    /** The sub-commands in the order {@code %dml help} lists them. */
    public List<DmlCommand> commands() {
        return Collections.unmodifiableList(new ArrayList<>(commands.values()));
    }

    @Override
    public Object eval(BaseKernel kernel, List<String> args) {
        return dispatch(kernel, args, null);
    }

    @Override
    public Object eval(BaseKernel kernel, List<String> args, String body) {
        return dispatch(kernel, args, body);
    }

    private Object dispatch(BaseKernel kernel, List<String> args, String body) {
        List<String> words = args.isEmpty() ? List.of(HelpCommand.NAME) : args;
        // every command stops by itself on an interrupt, and cleans up before it returns
        try (CellThread.Scope cooperative = CellThread.cooperating()) {
            DmlCommand command = find(words.get(0));
            return command.run(new CommandContext(kernel, session(kernel)),
                    words.subList(1, words.size()), body);
        } catch (DmlException e) {
            throw e.speaking(Vocabulary.NOTEBOOK); // the user typed a magic, not Java
        }
    }

    /** The session of the kernel these magics were installed into, opened on first use. */
    private synchronized DmlSession session(BaseKernel kernel) {
        if (session == null) {
            session = new DmlSession(kernel);
        }
        return session;
    }

    /** Stops this session's jobs and closes what it opened (its cluster, if it started one). */
    @Override
    public synchronized void close() {
        if (session != null) {
            session.close();
        }
    }

    /** The named sub-command, or an error that names the closest one. */
    DmlCommand find(String name) {
        DmlCommand command = commands.get(name);
        if (command != null) {
            return command;
        }
        Optional<String> guess = Suggestions.closest(name, commands.keySet());
        String fix = guess.map(g -> "Did you mean '%dml " + g + "'? ").orElse("")
                + "Sub-commands: " + String.join(", ", commands.keySet())
                + " (%dml help shows usage).";
        throw new DmlException("unknown sub-command '" + name + "'.", fix);
    }
}

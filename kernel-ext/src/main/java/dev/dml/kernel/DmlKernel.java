package dev.dml.kernel;

import dev.dml.kernel.exec.Bindings;
import dev.dml.kernel.exec.CellException;
import dev.dml.kernel.exec.CellHistory;
import dev.dml.kernel.exec.CodeAssist;
import dev.dml.kernel.exec.ErrorLines;
import dev.dml.kernel.exec.JShellEvaluator;
import dev.dml.kernel.jupyter.CellReplyEnvironment;
import dev.dml.kernel.jupyter.KernelIO;
import dev.dml.kernel.jupyter.Replies;
import dev.dml.kernel.jupyter.TableDisplay;
import dev.dml.kernel.maven.ClasspathMagics;
import dev.dml.kernel.maven.MavenMagic;
import dev.dml.kernel.maven.MavenResolver;
import java.nio.charset.Charset;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.BaseKernelBuilder;
import org.dflib.jjava.jupyter.kernel.JupyterIO;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.comm.CommManager;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.display.Renderer;
import org.dflib.jjava.jupyter.kernel.display.mime.MIMEType;
import org.dflib.jjava.jupyter.kernel.magic.MagicParser;
import org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry;
import org.dflib.jjava.jupyter.kernel.util.StringStyler;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.publish.PublishClearOutput;
import org.dflib.jjava.jupyter.messages.publish.PublishError;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteInput;
import org.dflib.jjava.jupyter.messages.publish.PublishExecuteResult;
import org.dflib.jjava.jupyter.messages.reply.ErrorReply;
import org.dflib.jjava.jupyter.messages.reply.ExecuteReply;
import org.dflib.jjava.jupyter.messages.request.ExecuteRequest;
import org.dflib.jjava.jupyter.messages.request.HistoryRequest;
import org.dflib.jjava.jupyter.messages.request.KernelInfoRequest;

/**
 * The dml Jupyter kernel: JShell evaluation on JJava's protocol library, with the {@code %dml}
 * magics (and any other JJava {@code Extension}) loaded through {@code META-INF/services}.
 */
public final class DmlKernel extends BaseKernel implements AutoCloseable {

    /** Kernel name as registered with Jupyter. */
    public static final String NAME = "dml";

    /** {@code %%dml cmd} alone on a line: JJava's parser needs a body line to see a cell magic. */
    private static final Pattern BODYLESS_CELL_MAGIC = Pattern.compile("\\s*%%\\w[^\\n]*\\s*");

    private final JShellEvaluator evaluator;
    private final CodeAssist assist;
    private final CellHistory history;
    private final Bindings bindings = new Bindings();
    private volatile ShellReplyEnvironment currentEnv;

    private DmlKernel(String name, String version, JupyterIO io, CommManager comms,
                      Renderer renderer, MagicParser parser, MagicsRegistry magics,
                      boolean extensionsEnabled, StringStyler errorStyler,
                      JShellEvaluator evaluator, CellHistory history, String classPath,
                      MavenResolver maven) {
        super(name, version, languageInfo(), List.of(), history, io, comms, renderer, parser,
                magics, extensionsEnabled, errorStyler);
        this.evaluator = evaluator;
        this.assist = new CodeAssist(evaluator.analysis());
        this.history = history;
        new ClasspathMagics(this::addToClasspath).register(getMagicsRegistry());
        new MavenMagic(this, this::addToClasspath, maven, classPath).register(getMagicsRegistry());
        TableDisplay.register(getRenderer());
    }

    /** Starts a builder; {@code build()} opens the JShell the kernel evaluates with. */
    public static Builder builder() {
        return new Builder();
    }

    private static LanguageInfo languageInfo() {
        return new LanguageInfo("java", Runtime.version().toString(), "text/x-java-source",
                ".jshell", "java", "java", "script");
    }

    /** The kernel running this notebook, for static helpers that cells call. */
    static DmlKernel current() {
        if (notebookKernel() instanceof DmlKernel kernel) {
            return kernel;
        }
        throw new IllegalStateException("this code runs outside the dml kernel");
    }

    @Override
    public Object evalRaw(String code) {
        String source = BODYLESS_CELL_MAGIC.matcher(code).matches() ? code.strip() + "\n " : code;
        declareBindings();
        try {
            JShellEvaluator.Value value = evaluator.eval(getMagicParser().resolveMagics(source));
            return value.present() ? value.value() : null;
        } finally {
            declareBindings();
        }
    }

    /** Declares the variables {@code %dml} bound while JShell was busy. */
    private void declareBindings() {
        for (String declaration : bindings.drain()) {
            evaluator.eval(declaration);
        }
    }

    /**
     * Returns the value of a notebook variable, for {@code %dml train TABLE}.
     *
     * @param name the variable
     * @return its value, empty when there is no such variable
     */
    public Optional<Object> variable(String name) {
        return evaluator.variable(name);
    }

    /**
     * The bytecode of the classes the cells defined and of the jars added to the kernel, for
     * {@code %dml train --block}.
     */
    public Map<String, byte[]> userClasses() {
        return evaluator.userClasses();
    }

    /** The notebook's variable names, for "did you mean" hints. */
    public List<String> variableNames() {
        return evaluator.variableNames();
    }

    /** Binds a value to a notebook variable once the running cell ends. */
    public void bind(String name, Object value) {
        bindings.bind(name, value);
    }

    @Override
    public DisplayData inspect(String code, int at, boolean extraDetail) {
        String doc = assist.inspect(code, at);
        return doc == null ? null : new DisplayData(doc);
    }

    @Override
    public ReplacementOptions complete(String code, int at) {
        return assist.complete(code, at);
    }

    @Override
    public String isComplete(String code) {
        return assist.isComplete(code);
    }

    /** Adds a jar or folder to the cells' class path and loads the Extensions it declares. */
    void addToClasspath(String path) {
        evaluator.addToClasspath(path);
        installExtensions(path);
    }

    /** Clears the running cell's output, now or when its next output arrives. */
    void clearOutput(boolean wait) {
        ShellReplyEnvironment env = currentEnv;
        if (env != null) {
            env.publish(wait ? PublishClearOutput.BEFORE_NEXT_OUTPUT : PublishClearOutput.NOW);
        }
    }

    /**
     * Runs a cell. Unlike JJava's handler, the error in the execute_reply carries the same short
     * lines as the one published to the cell, and every executed cell enters the history.
     */
    @Override
    protected synchronized void handleExecuteRequest(ShellReplyEnvironment env,
                                                     Message<ExecuteRequest> message) {
        commManager.setMessageContext(message);
        ExecuteRequest request = message.getContent();
        int count = executionCount.getAndIncrement();
        env.setBusyDeferIdle();
        env.publish(new PublishExecuteInput(request.getCode(), count));
        KernelIO io = (KernelIO) this.io;
        CellReplyEnvironment cell = io.attach(env, request.isStdinEnabled());
        env.defer(() -> io.detach(cell));
        currentEnv = cell;
        String resultText = null;
        try {
            DisplayData out = eval(request.getCode());
            if (out != null) {
                cell.publish(new PublishExecuteResult(count, out));
                Object text = out.getData(MIMEType.TEXT_PLAIN);
                resultText = text == null ? null : text.toString();
            }
            io.flush();  // the reply goes out before the deferred detach: printed text first
            env.defer().reply(new ExecuteReply(count, Collections.emptyMap()));
        } catch (Exception e) {
            String name = ErrorLines.name(e);
            String value = ErrorLines.value(e);
            List<String> lines = formatError(e);
            ErrorReply reply = new ErrorReply(name, value, lines);
            reply.setExecutionCount(count);
            cell.publish(new PublishError(name, value, lines));
            env.defer().replyError(ExecuteReply.MESSAGE_TYPE.error(), reply);
        } finally {
            currentEnv = null;
        }
        if (request.shouldStoreHistory()) {
            history.add(count, request.getCode(), resultText);
        }
    }

    @Override
    protected void handleHistoryRequest(ShellReplyEnvironment env,
                                        Message<HistoryRequest> message) {
        env.setBusyDeferIdle();
        env.reply(new Replies.History(history.answer(message.getContent())));
    }

    @Override
    protected void handleKernelInfoRequest(ShellReplyEnvironment env,
                                           Message<KernelInfoRequest> message) {
        env.setBusyDeferIdle();
        env.reply(new Replies.KernelInfo(name, version, getLanguageInfo(), getBanner()));
    }

    @Override
    public void interrupt() {
        evaluator.interrupt();
    }

    @Override
    public List<String> formatError(Throwable e) {
        if (e instanceof CellException.JavaError error) {
            return ErrorLines.thrown(error.getCause(), getMagicsRegistry().getLineMagicNames());
        }
        if (e instanceof CellException cell) {
            return cell.lines();
        }
        return ErrorLines.thrown(e, getMagicsRegistry().getLineMagicNames());
    }

    @Override
    public void onShutdown(boolean isRestarting) {
        try {
            super.onShutdown(isRestarting);
        } finally {
            close();
        }
    }

    @Override
    public void close() {
        try {
            evaluator.close();
        } finally {
            ((KernelIO) io).close();
        }
    }

    /** Builds the kernel; name and version default to dml's own. */
    public static final class Builder extends BaseKernelBuilder<Builder, DmlKernel> {
        private String classPath = System.getProperty("java.class.path", "");
        private MavenResolver maven;

        private Builder() {
            name(NAME);
        }

        /** The class path cells compile and run against; defaults to the kernel's own. */
        public Builder classPath(String classPath) {
            this.classPath = classPath;
            return this;
        }

        /** The resolver {@code %maven} uses; defaults to Maven's user settings. */
        public Builder mavenResolver(MavenResolver resolver) {
            this.maven = resolver;
            return this;
        }

        @Override
        protected String buildVersion() {
            String v = version != null ? version : DmlKernel.class.getPackage()
                    .getImplementationVersion();
            return v != null ? v : "dev";
        }

        @Override
        protected JupyterIO buildJupyterIO(Charset encoding) {
            return new KernelIO(encoding);
        }

        @Override
        public DmlKernel build() {
            MagicParser parser = magicParser != null ? magicParser
                    : new MagicParser("(?<=(?:^|=))\\s*%", "%%", buildMagicTranspiler());
            return new DmlKernel(buildName(), buildVersion(),
                    buildJupyterIO(buildJupyterIOEncoding()), buildCommManager(), buildRenderer(),
                    parser, buildMagicsRegistry(), buildExtensionsEnabled(), buildErrorStyler(),
                    JShellEvaluator.open(classPath), new CellHistory(), classPath,
                    maven != null ? maven : MavenResolver.fromUserSettings());
        }
    }
}

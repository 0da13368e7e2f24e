package dev.dml.magics;

import dev.dml.magics.live.DisplaySink;
import dev.dml.magics.live.Frame;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.DisplayStream;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;

/**
 * What a sub-command may use of the kernel it runs in. Borrowed for one call: commands must not
 * keep it.
 */
public final class CommandContext {

    private final BaseKernel kernel;
    private final DmlSession session;

    CommandContext(BaseKernel kernel, DmlSession session) {
        this.kernel = Objects.requireNonNull(kernel, "kernel");
        this.session = session;
    }

    /** Shows display data in the running cell. */
    public void display(DisplayData data) {
        kernel.display(data);
    }

    /** The host kernel's name and version, e.g. {@code dml 0.1.0} or {@code java 1.0-a6}. */
    public String kernelDescription() {
        return kernel.getName() + " " + kernel.getVersion();
    }

    DmlSession session() {
        return session;
    }

    /** A live display: frames as HTML, SVG and text, under one display id. */
    DisplaySink displaySink() {
        DisplayStream stream = kernel.getIO().display;
        return new DisplaySink() {
            @Override
            public void display(String displayId, String svg, String text) {
                stream.display(frame(displayId, svg, text));
            }

            @Override
            public void update(String displayId, String svg, String text) {
                stream.updateDisplay(displayId, frame(displayId, svg, text));
            }

            @Override
            public void display(String displayId, Frame frame) {
                stream.display(withHtml(displayId, frame));
            }

            @Override
            public void update(String displayId, Frame frame) {
                stream.updateDisplay(displayId, withHtml(displayId, frame));
            }
        };
    }

    /**
     * One line in the running cell that each call replaces: progress while a command works.
     *
     * @return where the lines go
     */
    Consumer<String> statusLine() {
        Consumer<DisplayData> replacing = replacing("dml-status-");
        return line -> replacing.accept(Html.text(line));
    }

    /**
     * One output in the running cell that each call replaces: a sweep's chart and table.
     *
     * @param prefix the display id's prefix
     * @return where the outputs go
     */
    Consumer<DisplayData> replacing(String prefix) {
        DisplayStream stream = kernel.getIO().display;
        String id = prefix + UUID.randomUUID();
        AtomicBoolean shown = new AtomicBoolean();
        return data -> {
            data.setDisplayId(id);
            if (shown.getAndSet(true)) {
                stream.updateDisplay(id, data);
            } else {
                stream.display(data);
            }
        };
    }

    /** A frame as the notebook shows it: HTML that reflows, the SVG and text as fallbacks. */
    private static DisplayData withHtml(String displayId, Frame frame) {
        DisplayData data = frame(displayId, frame.svg(), frame.text());
        data.putHTML(frame.html());
        return data;
    }

    private static DisplayData frame(String displayId, String svg, String text) {
        DisplayData data = new DisplayData(text);
        data.putSVG(svg);
        data.setDisplayId(displayId);
        return data;
    }
}

package dev.dml.kernel.jupyter;

import org.dflib.jjava.jupyter.channels.ShellChannel;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.messages.ContentType;
import org.dflib.jjava.jupyter.messages.Message;
import org.dflib.jjava.jupyter.messages.publish.PublishStream.StreamType;

/**
 * The running cell's view of its request: what it publishes (displays, updates, clear_output,
 * results, errors) first sends the text the cell printed before it, and what it writes to
 * stdout or stderr joins {@link CellStreams}' batch. Reading stdin goes to the request itself.
 */
public final class CellReplyEnvironment extends ShellReplyEnvironment {

    private final ShellReplyEnvironment request;
    private final CellStreams streams;

    CellReplyEnvironment(ShellReplyEnvironment request, CellStreams streams) {
        super((ShellChannel) request.getShell(), null, request.getIopub(), request.getContext());
        this.request = request;
        this.streams = streams;
    }

    @Override
    public void publish(Message<?> message) {
        streams.flushThen(() -> super.publish(message));
    }

    /** Publishes without sending the waiting text first: for the batch itself. */
    <T extends ContentType<T>> void publishNow(T content) {
        super.publish(new Message<>(getContext(), content.getType(), content));
    }

    @Override
    public void writeToStdOut(String text) {
        streams.write(StreamType.OUT, text);
    }

    @Override
    public void writeToStdErr(String text) {
        streams.write(StreamType.ERR, text);
    }

    @Override
    public String readFromStdIn(String prompt, boolean isPassword) {
        streams.flush();  // the question is shown after what the cell printed before it
        return request.readFromStdIn(prompt, isPassword);
    }

    @Override
    public String readFromStdIn(String prompt) {
        streams.flush();
        return request.readFromStdIn(prompt);
    }

    @Override
    public String readFromStdIn() {
        streams.flush();
        return request.readFromStdIn();
    }
}

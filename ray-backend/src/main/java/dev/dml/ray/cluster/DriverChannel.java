package dev.dml.ray.cluster;

import dev.dml.DmlException;
import dev.dml.ray.net.Frames;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;
import java.net.Socket;

/**
 * The loopback socket between a kernel and its driver process: length-prefixed frames, each a
 * small binary envelope (kind, call id, text, payload) read without Java deserialization, so
 * the token the driver sends first is checked on plain bytes. Only then are payloads (tasks,
 * results, events) deserialized, through {@link Payloads}' filter, which admits dml's classes
 * and the JDK types they hold, nothing else. A payload that cannot be written or read fails one
 * call, never the channel.
 */
final class DriverChannel implements AutoCloseable {

    /** Message kinds; requests go parent to child, the rest child to parent. */
    enum Kind {
        /** Child to parent, first: {@code text} is the token, {@code id} the child's pid. */
        HELLO,
        /** {@code Ray.init()} succeeded; {@code text} is the cluster address. */
        READY,
        /** {@code Ray.init()} failed; the payload is a {@link RemoteError}. */
        FAILED,
        /** Run the {@link DriverTask} in the payload; {@code id} names the call. */
        REQUEST,
        /** Call {@code id} returned the payload. */
        RESULT,
        /** Call {@code id} threw the {@link RemoteError} in the payload. */
        ERROR,
        /** Call {@code id}, still running, emitted the event in the payload. */
        EVENT,
        /** Interrupt call {@code id}. */
        CANCEL,
        /** Close everything and exit. */
        SHUTDOWN
    }

    /**
     * One frame.
     *
     * @param kind what it is
     * @param id the call it belongs to, or the child's pid in a HELLO
     * @param text a short text, or null
     * @param payload Java-serialized bytes, or null
     */
    record Message(Kind kind, long id, String text, byte[] payload) {}

    /** An exception from the other side, flattened so that no class of it is needed here. */
    static final class RemoteError implements Serializable {
        private static final long serialVersionUID = 1L;

        final String type;
        final String message;
        final String trace;
        /** A dml failure's unrendered lines, so the kernel can render them in its vocabulary. */
        final String dmlWhat;
        final String dmlHint;

        /** Keeps the first {@link DmlException} in the cause chain, else {@code t} itself. */
        RemoteError(Throwable t) {
            Throwable shown = t;
            for (Throwable c = t; c != null && c.getCause() != c; c = c.getCause()) {
                if (c instanceof DmlException) {
                    shown = c;
                    break;
                }
            }
            this.type = shown.getClass().getName();
            this.message = String.valueOf(shown.getMessage());
            DmlException dml = shown instanceof DmlException d ? d : null;
            this.dmlWhat = dml == null ? null : dml.whatTemplate();
            this.dmlHint = dml == null ? null : dml.hintTemplate();
            StringWriter w = new StringWriter();
            t.printStackTrace(new PrintWriter(w));
            this.trace = w.toString();
        }
    }

    /** A frame the other side may send before it proved who it is: a HELLO with a token. */
    static final int MAX_HELLO_FRAME = 1024;
    /** The largest frame: a job's encoded shards travel in one. */
    static final int MAX_FRAME = Integer.MAX_VALUE - 64;
    private static final Kind[] KINDS = Kind.values();

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    DriverChannel(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        this.in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 1 << 16));
        this.out = new DataOutputStream(
                new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
    }

    /**
     * Bounds how long a {@link #receive} waits for bytes.
     *
     * @param millis the wait, or 0 for none
     */
    void setReadTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** Sends a message with no payload. */
    void send(Kind kind, long id, String text) throws IOException {
        send(new Message(kind, id, text, null));
    }

    /**
     * Sends one frame; thread-safe. The payload goes to the socket as it is, after its envelope:
     * a job's shards are not copied into the frame.
     */
    void send(Message m) throws IOException {
        ByteArrayOutputStream envelope = new ByteArrayOutputStream(64);
        DataOutputStream e = new DataOutputStream(envelope);
        e.writeByte(m.kind().ordinal());
        e.writeLong(m.id());
        e.writeBoolean(m.text() != null);
        if (m.text() != null) {
            e.writeUTF(m.text());
        }
        e.writeInt(m.payload() == null ? -1 : m.payload().length);
        e.flush();
        synchronized (out) {
            out.writeInt(envelope.size() + (m.payload() == null ? 0 : m.payload().length));
            envelope.writeTo(out);
            if (m.payload() != null) {
                out.write(m.payload());
            }
            out.flush();
        }
    }

    /**
     * Reads one frame of any size; only one thread may read.
     *
     * @return the message, or {@code null} when the other side closed the channel
     * @throws IOException when the channel breaks or the frame is malformed
     */
    Message receive() throws IOException {
        return receive(MAX_FRAME);
    }

    /**
     * Reads one frame of at most {@code maxFrame} bytes; only one thread may read.
     *
     * @param maxFrame the longest frame accepted
     * @return the message, or {@code null} when the other side closed the channel
     * @throws IOException when the channel breaks, or the frame is too long or malformed
     */
    Message receive(int maxFrame) throws IOException {
        int len;
        try {
            len = in.readInt();
        } catch (EOFException e) {
            return null;
        }
        if (len < 0 || len > maxFrame) {
            throw new IOException("a frame of " + len + " bytes, over the " + maxFrame
                    + " accepted here");
        }
        // the envelope read from the stream, the payload straight into its own array: a job's
        // shards are held once, not in a frame and then in a copy of its payload
        FrameInput frame = new FrameInput(in, len);
        try {
            return parse(new DataInputStream(frame), frame);
        } catch (FrameInput.Closed e) {
            throw e;
        } catch (IOException e) {
            frame.skipRest();
            throw new MalformedFrame(e.getMessage() + " in a frame of " + len + " bytes");
        }
    }

    private static Message parse(DataInputStream e, FrameInput frame) throws IOException {
        int kind = e.readUnsignedByte();
        if (kind >= KINDS.length) {
            throw new IOException("an unknown message kind " + kind);
        }
        long id = e.readLong();
        String text = e.readBoolean() ? e.readUTF() : null;
        int size = e.readInt();
        if (size < -1 || size > frame.left()) {
            throw new IOException("a payload of " + size + " bytes");
        }
        byte[] payload = size < 0 ? null : Frames.read(frame, size);
        if (frame.left() > 0) {
            throw new IOException(frame.left() + " bytes after the payload");
        }
        return new Message(KINDS[kind], id, text, payload);
    }

    /**
     * A frame read whole whose envelope is malformed: the stream is still aligned on frames, so
     * the reader can refuse this one and go on.
     */
    static final class MalformedFrame extends IOException {
        private static final long serialVersionUID = 1L;

        MalformedFrame(String message) {
            super(message);
        }
    }

    /**
     * Java-serializes a payload into an array of exactly its size, written twice: once to count
     * the bytes, once into the array. A job's shards (tens of megabytes in the kernel's heap)
     * are then held once more, not also in a buffer that doubles as it grows and its copy. An
     * object that serializes to another length the second time is written as before.
     */
    static byte[] serialize(Object o) throws IOException {
        ExactArray exact = new ExactArray(ExactArray.count(o));
        try {
            write(o, exact);
            return exact.filled();
        } catch (ExactArray.Mismatch e) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            write(o, bytes);
            return bytes.toByteArray();
        }
    }

    static void write(Object o, java.io.OutputStream to) throws IOException {
        try (ObjectOutputStream oos = new ObjectOutputStream(to)) {
            oos.writeObject(o);
        }
    }

    /** Reads a payload through {@link Payloads}' filter. */
    static Object deserialize(byte[] data) throws IOException, ClassNotFoundException {
        return Payloads.read(data);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}

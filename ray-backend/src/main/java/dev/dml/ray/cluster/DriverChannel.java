package dev.dml.ray.cluster;

import dev.dml.DmlException;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;
import java.net.Socket;

/**
 * The loopback socket between a kernel and its driver process: length-prefixed frames, each a
 * serialized {@link Message}. A message's payload is serialized on its own, so a payload that
 * cannot be written or read fails one call, never the channel.
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

    /** One frame. */
    static final class Message implements Serializable {
        private static final long serialVersionUID = 1L;

        final Kind kind;
        final long id;
        final String text;
        final byte[] payload;

        Message(Kind kind, long id, String text, byte[] payload) {
            this.kind = kind;
            this.id = id;
            this.text = text;
            this.payload = payload;
        }
    }

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

    private static final int MAX_FRAME = Integer.MAX_VALUE - 64;

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

    /** Sends a message with no payload. */
    void send(Kind kind, long id, String text) throws IOException {
        send(new Message(kind, id, text, null));
    }

    /** Sends one frame; thread-safe. */
    void send(Message m) throws IOException {
        byte[] frame = serialize(m);
        synchronized (out) {
            out.writeInt(frame.length);
            out.write(frame);
            out.flush();
        }
    }

    /**
     * Reads one frame; only one thread may read.
     *
     * @return the message, or {@code null} when the other side closed the channel
     */
    Message receive() throws IOException {
        int len;
        try {
            len = in.readInt();
        } catch (EOFException e) {
            return null;
        }
        if (len < 0 || len > MAX_FRAME) {
            throw new IOException("bad frame length " + len);
        }
        byte[] frame = new byte[len];
        in.readFully(frame);
        try {
            return (Message) deserialize(frame);
        } catch (ClassNotFoundException e) {
            throw new IOException(e);
        }
    }

    static byte[] serialize(Object o) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(bytes)) {
            oos.writeObject(o);
        }
        return bytes.toByteArray();
    }

    /** Reads an object, looking classes up in the thread's context class loader first. */
    static Object deserialize(byte[] data) throws IOException, ClassNotFoundException {
        try (ObjectInputStream ois = new ObjectInputStream(new ByteArrayInputStream(data)) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc)
                    throws IOException, ClassNotFoundException {
                ClassLoader cl = Thread.currentThread().getContextClassLoader();
                if (cl != null) {
                    try {
                        return Class.forName(desc.getName(), false, cl);
                    } catch (ClassNotFoundException e) {
                        // fall back to the default lookup
                    }
                }
                return super.resolveClass(desc);
            }
        }) {
            return ois.readObject();
        }
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

package dev.dml.kernel.jupyter;

import com.google.gson.Gson;
import com.google.gson.JsonElement;
import com.google.gson.JsonParser;
import java.lang.reflect.Field;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.channels.JupyterSocket;
import org.dflib.jjava.jupyter.channels.Loop;
import org.dflib.jjava.jupyter.channels.ShellChannel;
import org.dflib.jjava.jupyter.channels.ShellHandler;
import org.dflib.jjava.jupyter.channels.ShellReplyEnvironment;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.dflib.jjava.jupyter.messages.HMACGenerator;
import org.dflib.jjava.jupyter.messages.Header;
import org.dflib.jjava.jupyter.messages.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.zeromq.ZMQ;

/**
 * The shell and control channels with a reader that survives what any local process can send
 * to a kernel's port. jjava-jupyter 1.0-a6 throws out of its channel loop on a message with a
 * bad signature (and on malformed JSON), which ends the shell thread while the heartbeat stays
 * up: the kernel looks alive but is deaf. Here a message is read whole (up to ZeroMQ's message
 * boundary), its HMAC checked in constant time, then parsed; one that is unsigned, badly
 * signed or malformed is logged and dropped, and the loop serves the next one. Every socket of
 * the connection refuses frames over {@link #MAX_FRAME_BYTES}: ZeroMQ would otherwise allocate
 * whatever a peer's frame header announces (2 GB, say) before any signature is checked; an
 * oversized frame ends that peer's connection, not the kernel.
 */
public final class SignedShellChannel extends ShellChannel {

    private static final Logger LOG = LoggerFactory.getLogger(SignedShellChannel.class);
    /** A cell's code, a widget's buffers: far below this; an announced 2 GB frame: refused. */
    static final long MAX_FRAME_BYTES = 64L << 20;
    private static final List<String> SOCKETS = List.of("shell", "control", "stdin", "iopub",
            "heartbeat");
    private static final byte[] DELIMITER = "<IDS|MSG>".getBytes(StandardCharsets.US_ASCII);
    /** As jjava's own shell loop: a poll, then this long asleep when nothing came. */
    private static final long SLEEP_MS = 50;
    private static final Gson GSON = staticField(JupyterSocket.class, "gson");
    private static final Type JSON_MAP = staticField(JupyterSocket.class, "JSON_OBJ_AS_MAP");

    private final boolean control;
    private final JupyterConnection connection;
    private volatile Loop loop;

    private SignedShellChannel(ZMQ.Context ctx, HMACGenerator hmac, boolean control,
            JupyterConnection connection) {
        super(ctx, hmac, control, connection, SLEEP_MS);
        this.control = control;
        this.connection = connection;
    }

    /**
     * Puts these channels in place of a connection's own shell and control channels, and caps
     * the frames every socket of it accepts, before it connects.
     *
     * @param connection a connection not connected yet
     */
    public static void installInto(JupyterConnection connection) {
        try {
            ZMQ.Context ctx = field(JupyterConnection.class, "ctx").get(connection) instanceof
                    ZMQ.Context c ? c : null;
            for (String name : List.of("shell", "control")) {
                Field f = field(JupyterConnection.class, name);
                ShellChannel original = (ShellChannel) f.get(connection);
                HMACGenerator hmac = (HMACGenerator) field(JupyterSocket.class, "hmacGenerator")
                        .get(original);
                f.set(connection, new SignedShellChannel(ctx, hmac, name.equals("control"),
                        connection));
                original.close();
            }
            for (String name : SOCKETS) {
                ((ZMQ.Socket) field(JupyterConnection.class, name).get(connection))
                        .setMaxMsgSize(MAX_FRAME_BYTES);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("jjava-jupyter's channels changed: " + e, e);
        }
    }

    @Override
    public void bind(KernelConnectionProperties props) {
        String address = formatAddress(props.getTransport(), props.getIp(),
                control ? props.getControlPort() : props.getShellPort());
        bind(address);
        ZMQ.Poller poller = ctx.poller(1);
        poller.register(this, ZMQ.Poller.POLLIN);
        String name = (control ? "control" : "shell") + "-signed";
        Loop l = new Loop(name, SLEEP_MS, () -> {
            if (poller.poll(0) > 0) {
                Message<?> m = readChecked();
                if (m != null) {
                    handle(m);
                }
            }
        });
        l.onClose(() -> loop = null);
        loop = l;
        l.start();
    }

    /** Reads one whole message; null when it was dropped. */
    Message<?> readChecked() {
        List<byte[]> frames = new ArrayList<>();
        do {
            frames.add(recv());
        } while (hasReceiveMore());
        int d = 0;
        while (d < frames.size() && !Arrays.equals(frames.get(d), DELIMITER)) {
            d++;
        }
        if (frames.size() < d + 6) {
            return dropped("has " + frames.size() + " frames and no complete message");
        }
        byte[] signature = frames.get(d + 1);
        byte[][] parts = {frames.get(d + 2), frames.get(d + 3), frames.get(d + 4),
                frames.get(d + 5)};
        String expected = hmacGenerator.calculateSignature(parts);
        if (expected != null && !MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII), signature)) {
            return dropped(signature.length == 0 ? "is not signed" : "has a wrong signature");
        }
        try {
            return parse(frames.subList(0, d), parts, frames.subList(d + 6, frames.size()));
        } catch (RuntimeException e) {
            return dropped("is malformed: " + e.getMessage());
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Message<?> parse(List<byte[]> identities, byte[][] parts, List<byte[]> blobs) {
        Header<?> header = GSON.fromJson(text(parts[0]), Header.class);
        if (header == null || header.getType() == null) {
            throw new IllegalArgumentException("no message type");
        }
        JsonElement parentJson = JsonParser.parseString(text(parts[1]));
        Header<?> parent = parentJson.isJsonObject() && !parentJson.getAsJsonObject().isEmpty()
                ? GSON.fromJson(parentJson, Header.class) : null;
        Map<String, Object> metadata = GSON.fromJson(text(parts[2]), JSON_MAP);
        Object content = GSON.fromJson(text(parts[3]), header.getType().getContentType());
        return new Message(new ArrayList<>(identities), header, parent, metadata, content,
                new ArrayList<>(blobs));
    }

    private Message<?> dropped(String why) {
        LOG.warn("dropped a message on the {} channel that {}", control ? "control" : "shell",
                why);
        return null;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void handle(Message<?> m) {
        ShellHandler handler = connection.getHandler(m.getHeader().getType());
        if (handler == null) {
            LOG.warn("unhandled message type {}", m.getHeader().getType().getName());
            return;
        }
        ShellReplyEnvironment env = connection.prepareReplyEnv(this, m);
        try {
            handler.handle(env, m);
        } catch (Exception e) {
            LOG.warn("handling {} failed: {}", m.getHeader().getType().getName(), e.toString());
        } finally {
            env.resolveDeferrals();
        }
        if (env.isMarkedForShutdown()) {
            connection.close();
        }
    }

    @Override
    public void close() {
        Loop l = loop;
        if (l != null) {
            l.shutdown();
        }
        super.close();
    }

    @Override
    public void waitUntilClose() {
        Loop l = loop;
        if (l != null) {
            try {
                l.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static Field field(Class<?> owner, String name) throws NoSuchFieldException {
        Field f = owner.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }

    @SuppressWarnings("unchecked")
    private static <T> T staticField(Class<?> owner, String name) {
        try {
            return (T) field(owner, name).get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("jjava-jupyter's JupyterSocket changed: " + e, e);
        }
    }
}

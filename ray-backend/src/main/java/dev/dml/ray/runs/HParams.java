package dev.dml.ray.runs;

import java.util.Map;

/**
 * A run's settings as TensorBoard's HParams plugin reads them: summaries tagged {@code
 * _hparams_/session_start_info} and {@code _hparams_/session_end_info}, whose metadata carries
 * an {@code HParamsPluginData} message (field numbers of {@code
 * tensorboard/plugins/hparams/plugin_data.proto}), with an empty tensor as the value, as
 * the plugin's own {@code summary.py} writes them. The plugin builds its table from these.
 */
final class HParams {

    static final String PLUGIN = "hparams";
    static final String START_TAG = "_hparams_/session_start_info";
    static final String END_TAG = "_hparams_/session_end_info";

    /** {@code types.proto}'s {@code DT_FLOAT}. */
    private static final int DT_FLOAT = 1;

    /** {@code api.proto}'s {@code Status}. */
    enum Status {
        UNKNOWN, SUCCESS, FAILURE, RUNNING
    }

    private HParams() {}

    /**
     * The summary that starts a session.
     *
     * @param values each setting: a {@link Number}, {@link Boolean} or text
     * @param startSeconds the run's start, seconds since the epoch
     * @param group the session group's name (the run's id)
     * @return the {@code Summary} message
     */
    static ProtoWriter start(Map<String, Object> values, double startSeconds, String group) {
        ProtoWriter info = new ProtoWriter();
        values.forEach((name, value) -> info.message(1,
                new ProtoWriter().string(1, name).message(2, value(value))));
        info.string(4, group).float64(5, startSeconds);
        return summary(START_TAG, new ProtoWriter().message(3, info));
    }

    /**
     * The summary that ends a session.
     *
     * @param status how it ended
     * @param endSeconds its end, seconds since the epoch
     * @return the {@code Summary} message
     */
    static ProtoWriter end(Status status, double endSeconds) {
        return summary(END_TAG, new ProtoWriter().message(4,
                new ProtoWriter().varint(1, status.ordinal()).float64(2, endSeconds)));
    }

    /** A {@code google.protobuf.Value}: number, bool, or string. */
    private static ProtoWriter value(Object v) {
        if (v instanceof Number n) {
            return new ProtoWriter().float64(2, n.doubleValue());
        }
        if (v instanceof Boolean b) {
            return new ProtoWriter().bool(4, b);
        }
        return new ProtoWriter().string(3, String.valueOf(v));
    }

    private static ProtoWriter summary(String tag, ProtoWriter pluginData) {
        // HParamsPluginData: version (1) is 0, left out as proto3 leaves zeros out
        ProtoWriter metadata = new ProtoWriter().message(1, new ProtoWriter()
                .string(1, PLUGIN).message(2, pluginData));
        // the plugin's NULL_TENSOR: an empty float vector (dtype, shape with one 0-sized dim)
        ProtoWriter tensor = new ProtoWriter().varint(1, DT_FLOAT)
                .message(2, new ProtoWriter().message(2, new ProtoWriter()));
        return new ProtoWriter().message(1, new ProtoWriter().string(1, tag)
                .message(8, tensor).message(9, metadata));
    }
}

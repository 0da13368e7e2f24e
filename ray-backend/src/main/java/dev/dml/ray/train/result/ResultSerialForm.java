package dev.dml.ray.train.result;

import dev.dml.events.EpochMetrics;
import dev.dml.events.Recovery;
import dev.dml.events.StepMetrics;
import dev.dml.events.WorkerInfo;
import dev.dml.ray.data.ColumnSelection;
import dev.dml.ray.model.ModelSpec;
import dev.dml.ray.model.OptimizerSpec;
import dev.dml.ray.train.recovery.RecoveryStats;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamField;
import java.util.ArrayList;

/**
 * The serialized form of a {@link TrainResult}: the fields it held before it was made of parts,
 * by name and type, so a model saved by an earlier dml ({@code dml-result.ser}) still opens,
 * and one saved now opens there. Change none of them.
 */
public final class ResultSerialForm {

    /** The fields, as {@code serialPersistentFields}. */
    public static final ObjectStreamField[] FIELDS = {
        new ObjectStreamField("job", String.class),
        new ObjectStreamField("model", ModelSpec.class),
        new ObjectStreamField("optimizer", OptimizerSpec.class),
        new ObjectStreamField("features", ColumnSelection.class),
        new ObjectStreamField("parameters", float[].class),
        new ObjectStreamField("steps", ArrayList.class),
        new ObjectStreamField("epochs", ArrayList.class),
        new ObjectStreamField("workers", ArrayList.class),
        new ObjectStreamField("globalSteps", long.class),
        new ObjectStreamField("resumedFromStep", long.class),
        new ObjectStreamField("stopped", boolean.class),
        new ObjectStreamField("wallSeconds", double.class),
        new ObjectStreamField("recoveries", ArrayList.class),
        new ObjectStreamField("stoppedEarlyAfter", int.class),
        new ObjectStreamField("keptEpoch", int.class),
    };

    private ResultSerialForm() {}

    /** Writes a result's parts as {@link #FIELDS}. */
    public static void write(TrainedModel model, TrainHistory history, RecoveryStats recovery,
            ObjectOutputStream out) throws IOException {
        ObjectOutputStream.PutField f = out.putFields();
        f.put("job", model.job());
        f.put("model", model.spec());
        f.put("optimizer", model.optimizer());
        f.put("features", model.features());
        f.put("parameters", model.parameters());
        f.put("steps", history.stepList());
        f.put("epochs", history.epochList());
        f.put("workers", history.workerList());
        f.put("globalSteps", history.globalSteps());
        f.put("resumedFromStep", history.resumedFromStep());
        f.put("stopped", history.stopped());
        f.put("wallSeconds", history.wallSeconds());
        f.put("recoveries", recovery.list());
        f.put("stoppedEarlyAfter", history.stoppedEarlyAfter());
        f.put("keptEpoch", history.keptEpoch());
        out.writeFields();
    }

    /** Reads what {@link #write} wrote, or an earlier dml's default form, as a new result. */
    @SuppressWarnings("unchecked")
    public static TrainResult read(ObjectInputStream in)
            throws IOException, ClassNotFoundException {
        ObjectInputStream.GetField f = in.readFields();
        TrainedModel model = new TrainedModel(get(f, "job", String.class, false),
                get(f, "model", ModelSpec.class, false),
                get(f, "optimizer", OptimizerSpec.class, false),
                get(f, "features", ColumnSelection.class, false),
                get(f, "parameters", float[].class, false));
        TrainHistory history = new TrainHistory(
                (ArrayList<StepMetrics>) get(f, "steps", ArrayList.class, true),
                (ArrayList<EpochMetrics>) get(f, "epochs", ArrayList.class, true),
                (ArrayList<WorkerInfo>) get(f, "workers", ArrayList.class, true),
                f.get("globalSteps", 0L), f.get("resumedFromStep", 0L), f.get("stopped", false),
                f.get("wallSeconds", 0.0), f.get("stoppedEarlyAfter", 0), f.get("keptEpoch", 0));
        return new TrainResult(model, history, new RecoveryStats(
                (ArrayList<Recovery>) get(f, "recoveries", ArrayList.class, true)));
    }

    /** A field of its type, or null where {@code required} is false. */
    private static <T> T get(ObjectInputStream.GetField f, String name, Class<T> type,
            boolean required) throws IOException {
        Object v = f.get(name, null);
        if (v == null && !required) {
            return null;
        }
        if (!type.isInstance(v)) {
            throw new InvalidObjectException("field " + name + " holds "
                    + (v == null ? "nothing" : v.getClass().getName()) + ", not "
                    + type.getName());
        }
        return type.cast(v);
    }
}

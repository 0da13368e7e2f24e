package dev.dml.ray.data;

/** What a label column holds, which decides its Arrow type and the loss a model uses. */
public enum LabelKind {
    /** Class indices {@code 0..k-1} (binary labels are {@code 0/1}); encoded as Arrow int32. */
    CLASSES,
    /** Real-valued regression targets; encoded as Arrow float32. */
    REGRESSION
}

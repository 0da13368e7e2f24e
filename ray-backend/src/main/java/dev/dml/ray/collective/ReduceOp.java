package dev.dml.ray.collective;

/** How an all-reduce combines the ranks' arrays, element by element. */
public enum ReduceOp {
    /** The sum over ranks. */
    SUM,
    /** The sum over ranks divided by the number of ranks (data-parallel gradient averaging). */
    AVERAGE
}

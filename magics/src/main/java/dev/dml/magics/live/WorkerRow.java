package dev.dml.magics.live;
/** TEMP */
public record WorkerRow(int rank, String node, long pid) {}

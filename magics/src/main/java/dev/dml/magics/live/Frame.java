package dev.dml.magics.live;
/** TEMP */
public record Frame(String svg, String text, long oldestUnshownReportMillis) {}

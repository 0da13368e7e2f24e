package dev.dml.magics.live;
/** TEMP */
public interface DisplaySink { void display(String displayId, String svg, String text); void update(String displayId, String svg, String text); }

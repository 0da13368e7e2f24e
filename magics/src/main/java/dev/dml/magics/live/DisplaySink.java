package dev.dml.magics.live;

/**
 * Where {@link LiveCell} sends frames: a notebook cell's output, addressed by display id. The
 * first call for an id is {@link #display}, later ones {@link #update} it in place.
 */
public interface DisplaySink {

    /** Shows a new output with this display id ({@code display_data}). */
    void display(String displayId, String svg, String text);

    /** Replaces the output shown under this display id ({@code update_display_data}). */
    void update(String displayId, String svg, String text);

    /** Shows a new frame: its HTML form where the sink can show it, else its SVG. */
    default void display(String displayId, Frame frame) {
        display(displayId, frame.svg(), frame.text());
    }

    /** Replaces the frame shown under this display id, as {@link #display(String, Frame)}. */
    default void update(String displayId, Frame frame) {
        update(displayId, frame.svg(), frame.text());
    }
}

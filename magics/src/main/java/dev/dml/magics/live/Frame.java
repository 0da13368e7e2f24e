package dev.dml.magics.live;

/**
 * One drawn frame of the live output.
 *
 * @param svg a standalone SVG document (mime type {@code image/svg+xml}): the whole frame at
 *     one fixed layout, for front ends that show no HTML
 * @param html the same frame as HTML (mime type {@code text/html}) whose charts reflow into
 *     fewer columns in a narrow pane; notebooks prefer it to the SVG
 * @param text a one-line plain-text fallback (mime type {@code text/plain})
 * @param oldestUnshownReportMillis the earliest {@link
 * dev.dml.events.StepMetrics#reportedAtMillis()} among the
 *     samples this frame shows for the first time; 0 when there is none
 */
public record Frame(String svg, String html, String text, long oldestUnshownReportMillis) {
}

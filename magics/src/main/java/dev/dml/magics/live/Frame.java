package dev.dml.magics.live;

/**
 * One drawn frame of the live output.
 *
 * @param svg a standalone SVG document (mime type {@code image/svg+xml})
 * @param text a one-line plain-text fallback (mime type {@code text/plain})
 * @param oldestUnshownReportMillis the earliest {@link dev.dml.events.StepMetrics#reportedAtMillis()} among the
 *     samples this frame shows for the first time; 0 when there is none
 */
public record Frame(String svg, String text, long oldestUnshownReportMillis) {
}

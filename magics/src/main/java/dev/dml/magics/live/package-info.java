/**
 * Live output of a training job in a notebook cell: {@link dev.dml.magics.live.LiveDashboard}
 * collects the samples a job reports and draws each frame's charts as SVG (drawn in Java with
 * JFreeChart, no JavaScript), shown as one SVG document and as HTML whose chart grid reflows in
 * a narrow pane; {@link dev.dml.magics.live.LiveCell} shows the frames
 * in place under one display id at a bounded rate, and {@link dev.dml.magics.live.SummaryTable}
 * renders the table shown when the job ends.
 *
 * <p>Nothing here needs a kernel: the caller adapts its display channel to
 * {@link dev.dml.magics.live.DisplaySink}.
 */
package dev.dml.magics.live;

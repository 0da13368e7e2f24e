package dev.dml.magics.live;
/** TEMP */
public final class SummaryTable { private SummaryTable() {} public static String html(JobSummary s) { return "<table><tr><td>" + s.job() + "</td></tr></table>"; } public static String text(JobSummary s) { return s.toString(); } }

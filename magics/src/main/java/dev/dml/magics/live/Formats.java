package dev.dml.magics.live;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Number, size and duration formats shared by frames and the summary; locale-independent. */
final class Formats {

    static final String DASH = "–";
    static final double MIB = 1024.0 * 1024.0;

    private Formats() {
    }

    /** Seconds as "42 s", "3 min 05 s" or "2 h 07 min"; a dash when unknown. */
    static String duration(double seconds) {
        if (!Double.isFinite(seconds) || seconds < 0) {
            return DASH;
        }
        long s = Math.round(seconds);
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return String.format(Locale.ROOT, "%d min %02d s", s / 60, s % 60);
        }
        return String.format(Locale.ROOT, "%d h %02d min", s / 3600, s % 3600 / 60);
    }

    /** Dollars: "$0.0123" under a dollar, "$12.34" above; a dash when unknown. */
    static String usd(double value) {
        if (!Double.isFinite(value)) {
            return DASH;
        }
        return String.format(Locale.US, Math.abs(value) < 1 ? "$%.4f" : "$%,.2f", value);
    }

    /** A whole number with thousands separators: "1,234". */
    static String count(double value) {
        return Double.isFinite(value) ? String.format(Locale.US, "%,.0f", value) : DASH;
    }

    /** A loss value with four decimals. */
    static String loss(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.4f", value) : DASH;
    }

    /** A fraction 0..1 as a percentage with one decimal: "93.4 %". */
    static String fraction(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.1f %%", value * 100) : DASH;
    }

    /** A percentage as a whole number: "87 %". */
    static String percent(double value) {
        return Double.isFinite(value) ? String.format(Locale.ROOT, "%.0f %%", value) : DASH;
    }

    /** Bytes in binary units: "512 B", "3.4 KiB", "12.0 MiB", "1.25 GiB". */
    static String bytes(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        }
        if (bytes < 1024L * 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / MIB);
        }
        return String.format(Locale.ROOT, "%.2f GiB", bytes / (MIB * 1024));
    }

    /** Ranks as runs: "rank 2", "ranks 0-3", "ranks 0-1, 4". */
    static String ranks(List<Integer> ranks) {
        List<Integer> sorted = ranks.stream().sorted().toList();
        List<String> runs = new ArrayList<>();
        for (int i = 0; i < sorted.size(); ) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            runs.add(i == j ? "" + sorted.get(i) : sorted.get(i) + "-" + sorted.get(j));
            i = j + 1;
        }
        return (sorted.size() == 1 ? "rank " : "ranks ") + String.join(", ", runs);
    }
}

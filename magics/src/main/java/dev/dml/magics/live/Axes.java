package dev.dml.magics.live;

import java.text.NumberFormat;
import java.util.Locale;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.TickUnits;
import org.jfree.data.Range;

/**
 * Value axes whose tick labels a person can read: each tick unit formats its values with just
 * the digits that tell neighbouring ticks apart, in the unit of what is measured (dollars to
 * the cent or milli-dollars, bytes in B to GiB, rates with k and M), never "-0"; and a flat or
 * one-point series gets a range around its value instead of a sliver that repeats one label.
 */
final class Axes {

    /** What an axis measures, which decides its tick sizes and labels. */
    enum Kind {
        /** Plain numbers (loss, minutes, ms): 0.002, 0.004; 1,000, 2,000. */
        PLAIN,
        /** Whole numbers only (steps, %): no fractional ticks. */
        WHOLE,
        /** Per-second rates: 500, 1k, 1.5k, 2M. */
        RATE,
        /** US dollars: $0.05, $1, $1,000; under a cent per tick, milli-dollars: 0.2 m$. */
        USD,
        /** Bytes, in binary units: 512 B, 2 KiB, 1.5 MiB, 3 GiB. */
        BYTES
    }

    private static final String[] BYTE_UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Axes() {
    }

    /** A value axis for {@code kind}; {@code includeZero} keeps 0 in its range. */
    static NumberAxis of(String label, Kind kind, boolean includeZero) {
        NumberAxis axis = new NumberAxis(label);
        axis.setStandardTickUnits(units(kind));
        axis.setAutoRangeIncludesZero(includeZero);
        axis.setAutoRangeStickyZero(includeZero);
        return axis;
    }

    /**
     * Gives a flat or one-point series a readable range: 5 % either side of its value (or from
     * 0 when the axis includes 0), or one small unit of {@code kind} when the value is 0.
     * Series that vary keep JFreeChart's automatic range.
     */
    static void fit(NumberAxis axis, Kind kind, double... values) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            if (Double.isFinite(v)) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        if (lo > hi) {
            return;  // nothing to draw: the plot shows its "waiting" message
        }
        boolean zero = axis.getAutoRangeIncludesZero();
        double span = Math.max(zero ? Math.max(hi, 0) - Math.min(lo, 0) : hi - lo, 0);
        double size = Math.max(Math.abs(lo), Math.abs(hi));
        if (span > 1e-9 * size && span > 0) {
            return;
        }
        double pad = size > 0 ? size * 0.05 : smallest(kind);
        double from = zero && lo >= 0 ? 0 : lo - pad;
        double to = zero && hi <= 0 && size > 0 ? 0 : hi + pad;
        if (lo >= 0 && from < 0) {
            from = 0;  // a quantity that is never negative gets no negative ticks
        }
        axis.setRange(new Range(from, to), true, false);
    }

    /** A unit of {@code kind} that an all-zero series is drawn against: $0.01, 1 KiB, 1. */
    private static double smallest(Kind kind) {
        return switch (kind) {
            case USD -> 0.01;
            case BYTES -> 1024;
            default -> 1;
        };
    }

    /** Tick sizes of 1, 2 and 5 times a power of ten (of a byte unit for bytes). */
    static TickUnits units(Kind kind) {
        TickUnits units = new TickUnits();
        if (kind == Kind.BYTES) {
            // Powers of two of each unit, so that ticks fall on round binary values.
            for (int u = 0; u < BYTE_UNITS.length; u++) {
                for (int m = 1; m <= 512; m *= 2) {
                    units.add(new Unit(m * Math.pow(1024, u), kind));
                }
            }
            return units;
        }
        for (int exp = kind == Kind.WHOLE ? 0 : -9; exp <= 15; exp++) {
            for (int m : new int[] {1, 2, 5}) {
                units.add(new Unit(m * Math.pow(10, exp), kind));
            }
        }
        return units;
    }

    /** The tick label of {@code value} on an axis whose ticks are {@code size} apart. */
    static String label(double value, double size, Kind kind) {
        double v = Math.abs(value) < size / 2 ? 0 : value;  // no "-0", no 1e-17
        return switch (kind) {
            case PLAIN, WHOLE -> decimal(v, size);
            case RATE -> rate(v, size);
            case USD -> size >= 0.01 ? (v < 0 ? "-$" : "$") + decimal(Math.abs(v), size, 2)
                    : decimal(v * 1000, size * 1000) + " m$";
            case BYTES -> bytes(v, size);
        };
    }

    private static String rate(double v, double size) {
        if (Math.abs(v) >= 1e6) {
            return decimal(v / 1e6, size / 1e6) + "M";
        }
        if (Math.abs(v) >= 1e3) {
            return decimal(v / 1e3, size / 1e3) + "k";
        }
        return decimal(v, size);
    }

    private static String bytes(double v, double size) {
        int u = 0;
        while (u + 1 < BYTE_UNITS.length
                && Math.max(Math.abs(v), size) >= Math.pow(1024, u + 1)) {
            u++;
        }
        double unit = Math.pow(1024, u);
        return decimal(v / unit, size / unit) + " " + BYTE_UNITS[u];
    }

    private static String decimal(double v, double size) {
        return decimal(v, size, 0);
    }

    /**
     * {@code v} with the decimals that a tick size of {@code size} needs (0.05: two), and a
     * thousands separator; where it needs any decimals, at least {@code minDecimals}.
     */
    private static String decimal(double v, double size, int minDecimals) {
        int decimals = 0;  // the fewest that write the tick size exactly: 0.25 needs two
        while (decimals < 9 && Math.abs(size * Math.pow(10, decimals)
                - Math.rint(size * Math.pow(10, decimals))) > 1e-6 * size
                * Math.pow(10, decimals)) {
            decimals++;
        }
        if (decimals > 0) {
            decimals = Math.max(decimals, minDecimals);
        }
        NumberFormat f = NumberFormat.getNumberInstance(Locale.US);
        f.setMinimumFractionDigits(decimals);
        f.setMaximumFractionDigits(decimals);
        return f.format(v);
    }

    /** A tick size whose labels {@link #label} formats. */
    private static final class Unit extends NumberTickUnit {
        private static final long serialVersionUID = 1L;
        private final Kind kind;

        Unit(double size, Kind kind) {
            super(size);
            this.kind = kind;
        }

        @Override
        public String valueToString(double value) {
            return label(value, getSize(), kind);
        }
    }
}

package dev.dml.cost;

import dev.dml.DmlException;
import java.util.Locale;

/** How a node is bought: at the list price, or as a spot (pre-emptible) instance. */
public enum Market {
    /** The list price, never pre-empted. */
    ON_DEMAND("on-demand"),
    /** Spare capacity, cheaper, and taken back at short notice. */
    SPOT("spot");

    private final String word;

    Market(String word) {
        this.word = word;
    }

    /**
     * Returns the word clusters and cells use: {@code on-demand} or {@code spot}.
     *
     * @return the word
     */
    public String word() {
        return word;
    }

    /**
     * Reads a market as a cluster label or {@code --market} writes it.
     *
     * @param text {@code spot} or {@code on-demand} (also {@code ondemand}), any case
     * @return the market
     * @throws DmlException naming the two words
     */
    public static Market parse(String text) {
        String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        return switch (t) {
            case "spot", "preemptible" -> SPOT;
            case "on-demand", "ondemand", "on_demand" -> ON_DEMAND;
            default -> throw new DmlException("Unknown market '" + DmlException.literal(text)
                    + "'.", "Write spot or on-demand.");
        };
    }
}

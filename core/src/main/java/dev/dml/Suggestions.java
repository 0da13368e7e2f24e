package dev.dml;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * Finds the known word a user most likely meant, for "Did you mean" hints: one rule for
 * sub-commands, options, variables and column names alike.
 */
public final class Suggestions {

    private Suggestions() {
    }

    /**
     * The closest candidate within a small edit distance of {@code typed} (case ignored), or one
     * that starts with it; empty when nothing is close enough to be a helpful guess.
     *
     * @param typed what the user typed
     * @param candidates the known words
     * @return the best guess, if any; the first of equally close ones
     */
    public static Optional<String> closest(String typed, Collection<String> candidates) {
        String t = typed.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        int allowed = Math.max(1, typed.length() / 3);
        for (String candidate : candidates) {
            String c = candidate.toLowerCase(Locale.ROOT);
            int distance = c.startsWith(t) && !t.isEmpty() ? 0 : editDistance(t, c);
            if (distance <= allowed && distance < bestDistance) {
                best = candidate;
                bestDistance = distance;
            }
        }
        return Optional.ofNullable(best);
    }

    /**
     * The start of a hint that names the closest candidate in quotes.
     *
     * @param typed what the user typed
     * @param candidates the known words
     * @return {@code Did you mean 'x'? } (with a trailing space), or an empty string
     */
    public static String didYouMean(String typed, Collection<String> candidates) {
        return closest(typed, candidates).map(g -> "Did you mean '" + g + "'? ").orElse("");
    }

    /** Optimal string alignment distance: Levenshtein plus adjacent swaps ("trian"). */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1),
                        d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2)
                        && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}

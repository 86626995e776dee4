package io.zerolayer.operators.contracts;

import java.util.Collection;
import java.util.Locale;
import java.util.Optional;

/**
 * What a diagnostic suggests for a misspelt name: the known one a typo away ({@code did you mean}).
 */
public final class NearestName {
    private NearestName() {}

    /** The known name closest to {@code input} by edit distance, if close enough to be a typo. */
    public static Optional<String> of(String input, Collection<String> known) {
        if (input == null || input.isEmpty()) {
            return Optional.empty();
        }
        String lower = input.toLowerCase(Locale.ROOT);
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = editDistance(lower, k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return bestDistance > 0 && bestDistance <= Math.max(2, input.length() / 3)
                ? Optional.of(best)
                : Optional.empty();
    }

    static int editDistance(String a, String b) {
        if (Math.abs(a.length() - b.length()) > 8) {
            return Math.abs(a.length() - b.length());
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}

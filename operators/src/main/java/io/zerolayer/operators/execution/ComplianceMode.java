package io.zerolayer.operators.execution;

import java.util.Locale;

/**
 * How strictly a request runs: compliance levels 1 to 3, each adding to the one below. A tenant has
 * a level; a request may ask for a higher one (its {@code compliance} attribute), never a lower.
 */
public enum ComplianceMode {
    /**
     * Level 1: cost records and graph ids (every request has them). Batched with others; compliance
     * nodes run when the request asks; optional nodes may prune.
     */
    STANDARD,
    /**
     * Level 2: plus the audit attributes on every response (prompt and output SHA-256, graph id,
     * model and weight checksum) and redaction: both compliance nodes always on. Still batched.
     */
    AUDITED,
    /**
     * Level 3: plus strict mode — alone (bit-identical answers for the same input), nothing pruned
     * — and an entry in the tenant's audit chain.
     */
    STRICT;

    /** The level: 1, 2 or 3. */
    public int level() {
        return ordinal() + 1;
    }

    /** The setting's text: {@code standard}, {@code audited} or {@code strict}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The higher of two levels; null counts as none. */
    public static ComplianceMode max(ComplianceMode a, ComplianceMode b) {
        if (a == null) {
            return b;
        }
        return b == null || a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * The level a request's {@code compliance} attribute asks for, by name or number in any case;
     * null when it names none (an attribute never fails a request).
     */
    public static ComplianceMode ofAttribute(String value) {
        return value == null ? null : named(value);
    }

    /**
     * The level a setting names: standard, audited, strict, or 1, 2, 3.
     *
     * @throws IllegalArgumentException naming the levels when it names none
     */
    public static ComplianceMode parse(String value) {
        ComplianceMode m = value == null ? null : named(value);
        if (m == null) {
            throw new IllegalArgumentException(
                    "Compliance level must be standard, audited or strict (1, 2 or 3), got '"
                            + value
                            + "'");
        }
        return m;
    }

    private static ComplianceMode named(String value) {
        String v = value.strip();
        for (ComplianceMode m : values()) {
            if (m.name().equalsIgnoreCase(v) || Integer.toString(m.level()).equals(v)) {
                return m;
            }
        }
        return null;
    }
}

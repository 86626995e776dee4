package io.zerolayer.operators.execution;

import java.util.Locale;

/**
 * How strictly a request runs; a tenant's mode, or a request's own {@code compliance} attribute.
 */
public enum ComplianceMode {
    /**
     * Batched with others; compliance nodes run when the request asks; optional nodes may prune.
     */
    STANDARD,
    /**
     * Alone (bit-identical answers for the same input), every compliance node (redact, audit) on,
     * nothing pruned.
     */
    STRICT;

    /** The setting's text: {@code standard} or {@code strict}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The mode a request's {@code compliance} attribute asks for: {@code strict} in any case, else
     * standard (an attribute never fails a request).
     */
    public static ComplianceMode ofAttribute(String value) {
        return STRICT.name().equalsIgnoreCase(value) ? STRICT : STANDARD;
    }

    /**
     * The mode a setting names, in any case.
     *
     * @throws IllegalArgumentException naming the modes when it names none
     */
    public static ComplianceMode parse(String value) {
        for (ComplianceMode m : values()) {
            if (m.name().equalsIgnoreCase(value == null ? "" : value.strip())) {
                return m;
            }
        }
        throw new IllegalArgumentException(
                "Compliance mode must be standard or strict, got '" + value + "'");
    }
}

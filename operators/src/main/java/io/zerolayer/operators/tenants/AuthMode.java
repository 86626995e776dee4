package io.zerolayer.operators.tenants;

import java.util.Locale;

/** How the job verifies who sent a request ({@code zerolayer.auth.mode}). */
public enum AuthMode {
    /**
     * Every request must carry its tenant's HMAC-SHA256 signature (docs/tenants.md); anything else
     * is dead-lettered, never executed, billed or replied to.
     */
    HMAC,
    /**
     * The tenant is whatever the request says. Only for a deployment where every writer of the
     * requests topic is trusted; allowed only when set explicitly, and logged as a warning.
     */
    NONE;

    /** The setting's text: {@code hmac} or {@code none}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}

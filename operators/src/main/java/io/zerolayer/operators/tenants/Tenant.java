package io.zerolayer.operators.tenants;

import java.util.List;

/**
 * A tenant of the deployment, as its registry entry says.
 *
 * @param id the tenant id requests carry
 * @param keys its active signing keys, one or two (two while a key is being rotated)
 */
public record Tenant(String id, List<TenantKey> keys) {
    public Tenant {
        keys = List.copyOf(keys);
    }

    /** The key whose signature {@code verifies} accepts, or null when none does. */
    public TenantKey keyThatSigned(java.util.function.Predicate<byte[]> verifies) {
        for (TenantKey key : keys) {
            if (verifies.test(key.secret())) {
                return key;
            }
        }
        return null;
    }
}

package io.zerolayer.operators.tenants;

import java.util.List;

/**
 * A tenant of the deployment, as its registry entry says.
 *
 * @param id the tenant id requests carry
 * @param keys its active signing keys, one or two (two while a key is being rotated)
 * @param quotas how much it may hold, and what happens beyond
 * @param compliance its compliance level; null: the settings' ({@code zerolayer.compliance.*})
 * @param safeMode what happens to its prompts of abnormal structure; null: the settings' ({@code
 *     zerolayer.safe-mode.*})
 * @param quality the lowest quality floor its requests run at (raising a task's own); null: the
 *     tasks'
 */
public record Tenant(
        String id,
        List<TenantKey> keys,
        TenantQuotas quotas,
        io.zerolayer.operators.execution.ComplianceMode compliance,
        io.zerolayer.operators.contracts.SafeModePolicy.Policy safeMode,
        io.zerolayer.operators.quality.QualityFloor quality) {
    public Tenant {
        keys = List.copyOf(keys);
        java.util.Objects.requireNonNull(quotas, "quotas");
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

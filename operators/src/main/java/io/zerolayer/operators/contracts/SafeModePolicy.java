package io.zerolayer.operators.contracts;

import java.io.Serializable;
import java.util.Map;
import java.util.Set;

/**
 * Per-tenant choice for prompts whose structure is abnormal: {@code degrade} serves them with the
 * SAFE graph (fidelity SAFE_MODE), {@code strict} rejects them with their diagnostics.
 *
 * @param defaultPolicy the policy of tenants without an entry
 * @param tenantPolicies tenant id → policy
 */
public record SafeModePolicy(String defaultPolicy, Map<String, String> tenantPolicies)
        implements Serializable {
    public static final String DEGRADE = "degrade";
    public static final String STRICT = "strict";
    private static final Set<String> POLICIES = Set.of(DEGRADE, STRICT);

    public SafeModePolicy {
        check(defaultPolicy, "the default safe-mode policy");
        tenantPolicies.forEach(
                (tenant, policy) ->
                        check(policy, "the safe-mode policy of tenant '" + tenant + "'"));
        tenantPolicies = Map.copyOf(tenantPolicies);
    }

    public boolean degrades(String tenant) {
        return tenantPolicies.getOrDefault(tenant, defaultPolicy).equals(DEGRADE);
    }

    private static void check(String policy, String what) {
        if (!POLICIES.contains(policy)) {
            throw new IllegalArgumentException(
                    what + " is '" + policy + "'; use strict or degrade");
        }
    }
}

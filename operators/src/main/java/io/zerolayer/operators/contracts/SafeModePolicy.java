package io.zerolayer.operators.contracts;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Per-tenant choice for prompts whose structure is abnormal.
 *
 * @param defaultPolicy the policy of tenants without an entry
 * @param tenantPolicies tenant id → policy
 */
public record SafeModePolicy(Policy defaultPolicy, Map<String, Policy> tenantPolicies)
        implements Serializable {

    /** What happens to a prompt with abnormal structure. */
    public enum Policy {
        /** Answered by the SAFE graph, with fidelity SAFE_MODE and the diagnostics. */
        DEGRADE,
        /** Rejected with its diagnostics. */
        STRICT;

        /** The setting's text: {@code degrade} or {@code strict}. */
        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * The policy a setting names, in any case.
         *
         * @throws IllegalArgumentException naming the policies when it names none
         */
        public static Policy parse(String value, String what) {
            for (Policy p : values()) {
                if (p.name().equalsIgnoreCase(value == null ? "" : value.strip())) {
                    return p;
                }
            }
            throw new IllegalArgumentException(what + " is '" + value + "'; use strict or degrade");
        }
    }

    public SafeModePolicy {
        java.util.Objects.requireNonNull(defaultPolicy, "defaultPolicy");
        tenantPolicies = Map.copyOf(tenantPolicies);
    }

    /** The policies of settings: a default, and tenant id → policy as text. */
    public static SafeModePolicy of(Policy defaultPolicy, Map<String, String> tenantPolicies) {
        Map<String, Policy> parsed = new LinkedHashMap<>();
        tenantPolicies.forEach(
                (tenant, policy) ->
                        parsed.put(
                                tenant,
                                Policy.parse(
                                        policy,
                                        "the safe-mode policy of tenant '" + tenant + "'")));
        return new SafeModePolicy(defaultPolicy, parsed);
    }

    public boolean degrades(String tenant) {
        return tenantPolicies.getOrDefault(tenant, defaultPolicy) == Policy.DEGRADE;
    }
}

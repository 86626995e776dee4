package io.zerolayer.operators.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class TenantRegistryTest {
    static final String K1 = "5f0c6a1e9b2d4c7f8a3e1b0d2c4f6e8a9b1c3d5e7f9a0b2c4d6e8f0a1b3c5d7e";
    static final String K2 = "9a41c2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1";

    @Test
    void readsTenantsWithOneOrTwoKeys() {
        TenantRegistry registry =
                TenantRegistry.parse(
                        """
                        version: 1
                        tenants:
                          acme:
                            keys:
                              "2026-12": "%s"
                              "2027-01": "%s"
                          globex:
                            keys:
                              k1: "%s"
                        """
                                .formatted(K1, K2, K2),
                        "tenants.yaml");

        assertThat(registry.tenantIds()).containsExactly("acme", "globex");
        Tenant acme = registry.tenant("acme").orElseThrow();
        assertThat(acme.keys()).extracting(TenantKey::id).containsExactly("2026-12", "2027-01");
        assertThat(acme.keys().get(1).secret()).isEqualTo(HexFormat.of().parseHex(K2));
        assertThat(registry.tenant("initech")).isEmpty();
        assertThat(registry.credentials("globex").tenantId()).isEqualTo("globex");
        assertThat(registry.toString())
                .contains("2 tenant(s)")
                .doesNotContain(K1)
                .doesNotContain(K2);
    }

    @Test
    void brokerQuotasAreReadLikeTheOthersAndNeverNegative() {
        TenantRegistry registry =
                TenantRegistry.parse(
                        """
                        version: 1
                        defaults:
                          quotas: {kafka-request-percentage: 50}
                        tenants:
                          acme:
                            keys: {k1: "%s"}
                            quotas: {kafka-produce-bytes-per-second: 1048576}
                          globex:
                            keys: {k1: "%s"}
                        """
                                .formatted(K1, K2),
                        "tenants.yaml");
        assertThat(registry.quotas("acme").kafkaProduceBytesPerSecond()).isEqualTo(1048576);
        assertThat(registry.quotas("acme").kafkaRequestPercentage()).isEqualTo(50);
        assertThat(registry.quotas("globex").kafkaProduceBytesPerSecond()).isZero();
        assertThatThrownBy(
                        () ->
                                TenantRegistry.parse(
                                        """
                                        version: 1
                                        tenants:
                                          acme:
                                            keys: {k1: "%s"}
                                            quotas: {kafka-produce-bytes-per-second: -1}
                                        """
                                                .formatted(K1),
                                        "tenants.yaml"))
                .hasMessageContaining("kafka-produce-bytes-per-second");
    }

    @Test
    void quotasComeFromTheEntryThenTheFileDefaultsThenTheBuiltInOnes() {
        TenantRegistry registry =
                TenantRegistry.parse(
                        """
                        version: 1
                        defaults:
                          quotas: {in-flight-per-slot: 64, encoder-tokens-per-second: 100000}
                        tenants:
                          acme:
                            keys: {k1: "%s"}
                            quotas: {in-flight-per-slot: 8, requests-per-second: 50, over-quota: backpressure}
                          globex:
                            keys: {k1: "%s"}
                        """
                                .formatted(K1, K2),
                        "tenants.yaml");
        assertThat(registry.quotas("acme"))
                .isEqualTo(new TenantQuotas(8, 50, 100000, TenantQuotas.OverQuota.BACKPRESSURE));
        assertThat(registry.quotas("globex"))
                .isEqualTo(new TenantQuotas(64, 0, 100000, TenantQuotas.OverQuota.REJECT));
        assertThat(registry.quotas("not-registered")).isEqualTo(registry.quotas("globex"));
        assertThat(TenantRegistry.of("solo", HexFormat.of().parseHex(K1)).quotas("solo"))
                .isEqualTo(TenantQuotas.DEFAULT);
    }

    @Test
    void aTenantsComplianceLevelIsReadByNameOrNumberAndOtherwiseLeftToTheSettings() {
        TenantRegistry registry =
                TenantRegistry.parse(
                        """
                        version: 1
                        tenants:
                          bank: {keys: {k1: "%s"}, compliance-level: 3}
                          clinic: {keys: {k1: "%s"}, compliance-level: audited}
                          shop: {keys: {k1: "%s"}}
                        """
                                .formatted(K1, K2, K1.replace('5', '6')),
                        "tenants.yaml");
        assertThat(registry.compliance("bank"))
                .isEqualTo(io.zerolayer.operators.execution.ComplianceMode.STRICT);
        assertThat(registry.compliance("clinic"))
                .isEqualTo(io.zerolayer.operators.execution.ComplianceMode.AUDITED);
        assertThat(registry.compliance("shop")).isNull();
        assertThat(registry.compliance("unknown")).isNull();
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k1: '" + K1 + "'}, compliance-level: 4}}",
                "compliance-level");
    }

    @Test
    void aTenantsSafeModeIsStrictOrDegradeAndOtherwiseLeftToTheSettings() {
        TenantRegistry registry =
                TenantRegistry.parse(
                        """
                        version: 1
                        tenants:
                          bank: {keys: {k1: "%s"}, safe-mode: strict}
                          shop: {keys: {k1: "%s"}, safe-mode: Degrade}
                          clinic: {keys: {k1: "%s"}}
                        """
                                .formatted(K1, K2, K1.replace('5', '6')),
                        "tenants.yaml");
        assertThat(registry.safeMode("bank"))
                .isEqualTo(io.zerolayer.operators.contracts.SafeModePolicy.Policy.STRICT);
        assertThat(registry.safeMode("shop"))
                .isEqualTo(io.zerolayer.operators.contracts.SafeModePolicy.Policy.DEGRADE);
        assertThat(registry.safeMode("clinic")).isNull();
        assertThat(registry.safeMode("unknown")).isNull();
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k1: '" + K1 + "'}, safe-mode: lenient}}",
                "tenant 'a' safe-mode is 'lenient'; use strict or degrade");
    }

    @Test
    void aRegistryOfItsOwnMakingRoundTrips() {
        byte[] key = HexFormat.of().parseHex(K1);
        TenantRegistry registry = TenantRegistry.of("demo \"quoted\"", key);
        assertThat(registry.tenant("demo \"quoted\"").orElseThrow().keys().get(0).secret())
                .isEqualTo(key);
    }

    @Test
    void everyMistakeIsNamedAndNoKeyIsQuoted() {
        assertRefused("tenants: {}\nversion: 1", "names no tenant");
        assertRefused("version: 2\ntenants: {a: {keys: {k: '" + K1 + "'}}}", "version must be 1");
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k: '" + K1 + "'}, quota: 3}}",
                "unknown setting 'quota'");
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k1: '"
                        + K1
                        + "', k2: '"
                        + K2
                        + "', k3: '"
                        + K1
                        + "'}}}",
                "has 3 keys");
        assertRefused("version: 1\ntenants: {a: {keys: {k1: '00112233'}}}", "4 bytes");
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k1: 'zz" + K1.substring(2) + "'}}}",
                "hex digits");
        assertRefused("version: 1\ntenants: {a: {keys: {k1: 12345}}}", "quote it");
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k1: '" + K1 + "', k2: '" + K1 + "'}}}",
                "same key under two names");
        assertRefused(
                "version: 1\ntenants:\n  a: {keys: {k1: '"
                        + K1
                        + "'}}\n  a: {keys: {k1: '"
                        + K2
                        + "'}}\n",
                "not valid YAML");
        assertRefused("version: 1\ntenants: {a: {keys: '" + K1 + "'}}", "must be a mapping");
        assertRefused(
                "version: 1\ntenants: {\"a\\nb\": {keys: {k1: '" + K1 + "'}}}",
                "control character");
        assertRefused("version: 1\ntenants: [" + K1 + "]", "must be a mapping");
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k1: '" + K1 + "'}, quotas: {in-flight: 3}}}",
                "unknown setting 'in-flight'");
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k1: '"
                        + K1
                        + "'}, quotas: {in-flight-per-slot: -1}}}",
                "whole number");
        assertRefused(
                "version: 1\ntenants: {a: {keys: {k1: '" + K1 + "'}, quotas: {over-quota: drop}}}",
                "use reject or backpressure");
        assertRefused(
                "version: 1\ndefaults: {quota: {}}\ntenants: {a: {keys: {k1: '" + K1 + "'}}}",
                "unknown setting 'quota'");
    }

    private static void assertRefused(String yaml, String message) {
        assertThatThrownBy(() -> TenantRegistry.parse(yaml, "t.yaml"))
                .isInstanceOf(TenantRegistryException.class)
                .hasMessageContaining("t.yaml")
                .hasMessageContaining(message)
                .hasMessageNotContaining(K1.substring(4))
                .hasMessageNotContaining(K2.substring(4));
    }
}

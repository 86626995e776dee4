package io.zerolayer.operators.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.quality.QualityFloor;
import io.zerolayer.schemas.AnalysisRequest;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TenantRoutingTest {
    private static AnalysisRequest request(String tenant, Map<String, String> attributes) {
        return AnalysisRequest.newBuilder()
                .setRequestId("r")
                .setTenantId(tenant)
                .setPrompt("<task:embed> x")
                .setSubmittedAt(Instant.EPOCH)
                .setAttributes(attributes)
                .build();
    }

    @Test
    void withoutComplianceSettingsEveryRequestIsStandard() {
        TenantRouting routing =
                new TenantRouting(
                        null, null, SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()));
        assertThat(routing.complianceOf(request("bank", Map.of("compliance", "strict"))))
                .isEqualTo(ComplianceMode.STANDARD);
    }

    @Test
    void aTenantsSettingOrItsRequestsAttributeMakesItStrict() {
        TenantRouting routing =
                new TenantRouting(
                        null,
                        ExecutionSettings.DEFAULTS.withCompliance(
                                ComplianceMode.STANDARD, Map.of("bank", ComplianceMode.STRICT)),
                        SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()));
        assertThat(routing.strict(request("bank", Map.of()))).isTrue();
        assertThat(routing.strict(request("shop", Map.of()))).isFalse();
        assertThat(routing.strict(request("shop", Map.of("compliance", "strict")))).isTrue();
    }

    @Test
    void aRequestsQualityAttributeReplacesItsTasksFloorAndANameOfNoFloorIsIgnored() {
        TenantRouting routing =
                new TenantRouting(
                        null, null, SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()));
        assertThat(routing.qualityFloor(request("t", Map.of("quality", "fast")), QualityFloor.BEST))
                .isEqualTo(QualityFloor.FAST);
        assertThat(routing.qualityFloor(request("t", Map.of("quality", "top")), QualityFloor.BEST))
                .isEqualTo(QualityFloor.BEST);
    }

    @Test
    void withoutARegistryTheSettingsSafeModePolicyDecides() {
        TenantRouting routing =
                new TenantRouting(
                        null,
                        null,
                        SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of("lab", "degrade")));
        assertThat(routing.degrades("lab")).isTrue();
        assertThat(routing.degrades("bank")).isFalse();
    }
}

package io.zerolayer.operators.execution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExecutionSettingsTest {
    @Test
    void slotsShareTheTaskManagersGpusRoundRobinOrAsConfigured() {
        ExecutionSettings.Gpu all = ExecutionSettings.Gpu.DEFAULTS;
        assertThat(List.of(0, 1, 2, 3, 4).stream().map(slot -> all.deviceFor(slot, 4)))
                .containsExactly(0, 1, 2, 3, 0);
        assertThat(all.deviceFor(3, 0)).isZero(); // nothing detected: the first device
        ExecutionSettings.Gpu chosen =
                new ExecutionSettings.Gpu(
                        List.of(2, 3), 0, io.zerolayer.gpu.ArenaExtendStrategy.SAME_AS_REQUESTED);
        assertThat(List.of(0, 1, 2).stream().map(slot -> chosen.deviceFor(slot, 8)))
                .containsExactly(2, 3, 2);
    }

    @Test
    void aRequestMayRaiseItsTenantsComplianceLevelButNeverLowerIt() {
        ExecutionSettings s =
                ExecutionSettings.DEFAULTS.withCompliance(
                        ComplianceMode.STANDARD, Map.of("bank", ComplianceMode.STRICT));
        assertThat(s.complianceOf("bank", Map.of())).isEqualTo(ComplianceMode.STRICT);
        assertThat(s.complianceOf("shop", Map.of())).isEqualTo(ComplianceMode.STANDARD);
        assertThat(s.complianceOf("shop", Map.of("compliance", "STRICT")))
                .isEqualTo(ComplianceMode.STRICT);
        assertThat(s.complianceOf("shop", Map.of("compliance", "2")))
                .isEqualTo(ComplianceMode.AUDITED);
        // a request cannot switch off its tenant's strict mode
        assertThat(s.complianceOf("bank", Map.of("compliance", "standard")))
                .isEqualTo(ComplianceMode.STRICT);
        // the registry's level for a tenant comes before the settings'
        assertThat(s.complianceOf("bank", Map.of(), ComplianceMode.AUDITED))
                .isEqualTo(ComplianceMode.AUDITED);
        assertThat(s.complianceOf("shop", Map.of("compliance", "audited"), ComplianceMode.STRICT))
                .isEqualTo(ComplianceMode.STRICT);
        // a request's attribute never fails it; a setting that names no level does, clearly
        assertThat(s.complianceOf("shop", Map.of("compliance", "lenient")))
                .isEqualTo(ComplianceMode.STANDARD);
        assertThatThrownBy(() -> ComplianceMode.parse("lenient"))
                .hasMessageContaining("standard, audited or strict (1, 2 or 3)");
        assertThat(ComplianceMode.parse(" Strict ")).isEqualTo(ComplianceMode.STRICT);
        assertThat(ComplianceMode.parse("2")).isEqualTo(ComplianceMode.AUDITED);
        assertThat(ComplianceMode.STRICT).hasToString("strict");
        assertThat(ComplianceMode.STRICT.level()).isEqualTo(3);
        assertThatThrownBy(() -> s.withMemory(1.5, -1)).hasMessageContaining("between 0 and 1");
    }
}

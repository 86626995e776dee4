package io.zerolayer.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.operators.execution.ComplianceMode;
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
    void complianceComesFromTheRequestThenTheTenantThenTheDefault() {
        ExecutionSettings s =
                ExecutionSettings.DEFAULTS.withCompliance(
                        ComplianceMode.STANDARD, Map.of("bank", ComplianceMode.STRICT));
        assertThat(s.complianceOf("bank", Map.of())).isEqualTo(ComplianceMode.STRICT);
        assertThat(s.complianceOf("shop", Map.of())).isEqualTo(ComplianceMode.STANDARD);
        assertThat(s.complianceOf("shop", Map.of("compliance", "STRICT")))
                .isEqualTo(ComplianceMode.STRICT);
        assertThat(s.complianceOf("bank", Map.of("compliance", "standard")))
                .isEqualTo(ComplianceMode.STANDARD);
        // a request's attribute never fails it; a setting that names no mode does, clearly
        assertThat(s.complianceOf("bank", Map.of("compliance", "lenient")))
                .isEqualTo(ComplianceMode.STANDARD);
        assertThatThrownBy(() -> ComplianceMode.parse("lenient"))
                .hasMessageContaining("standard or strict");
        assertThat(ComplianceMode.parse(" Strict ")).isEqualTo(ComplianceMode.STRICT);
        assertThat(ComplianceMode.STRICT).hasToString("strict");
        assertThatThrownBy(() -> s.withMemory(1.5, -1)).hasMessageContaining("between 0 and 1");
    }
}

package io.zerolayer.operators.flink;

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
                new ExecutionSettings.Gpu(List.of(2, 3), 0, "kSameAsRequested");
        assertThat(List.of(0, 1, 2).stream().map(slot -> chosen.deviceFor(slot, 8)))
                .containsExactly(2, 3, 2);
    }

    @Test
    void complianceComesFromTheRequestThenTheTenantThenTheDefault() {
        ExecutionSettings s =
                ExecutionSettings.DEFAULTS.withCompliance("standard", Map.of("bank", "strict"));
        assertThat(s.complianceOf("bank", Map.of())).isEqualTo("strict");
        assertThat(s.complianceOf("shop", Map.of())).isEqualTo("standard");
        assertThat(s.complianceOf("shop", Map.of("compliance", "STRICT"))).isEqualTo("strict");
        assertThat(s.complianceOf("bank", Map.of("compliance", "standard"))).isEqualTo("standard");
        assertThatThrownBy(() -> s.withCompliance("lenient", Map.of()))
                .hasMessageContaining("standard or strict");
        assertThatThrownBy(() -> s.withMemory(1.5, -1)).hasMessageContaining("between 0 and 1");
    }
}

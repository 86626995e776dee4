package io.zerolayer.operators.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeyPhaseTest {
    @Test
    void aRunningBatchDecidesThePhaseBeforeAnyQueue() {
        assertThat(KeyPhase.of(false, false, false)).isEqualTo(KeyPhase.IDLE);
        assertThat(KeyPhase.of(false, false, true)).isEqualTo(KeyPhase.QUEUED);
        assertThat(KeyPhase.of(true, false, true)).isEqualTo(KeyPhase.RUNNING);
        assertThat(KeyPhase.of(true, true, true)).isEqualTo(KeyPhase.DONE);
        assertThat(KeyPhase.of(true, true, false)).isEqualTo(KeyPhase.DONE);
    }
}

package io.zerolayer.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The executor reads two settings from its TaskManager's own configuration by their keys. */
class TaskManagerKeysTest {
    @Test
    void theExecutorReadsTheKeysTheJobsOptionsDeclare() throws Exception {
        Class<?> executor = Class.forName("io.zerolayer.operators.flink.TaskManagerHardware");
        var profile = executor.getDeclaredField("HARDWARE_PROFILE_KEY");
        var profiles = executor.getDeclaredField("HARDWARE_PROFILES_FILE_KEY");
        profile.setAccessible(true);
        profiles.setAccessible(true);
        assertThat(profile.get(null)).isEqualTo(HardwareOptions.HARDWARE_PROFILE.key());
        assertThat(profiles.get(null)).isEqualTo(HardwareOptions.HARDWARE_PROFILES_FILE.key());
    }
}

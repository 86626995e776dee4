package io.zerolayer.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.operators.co.CoBroadcastWithKeyedOperator;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.junit.jupiter.api.Test;

/**
 * The classifier estimates a request's encoder time for the hardware the executor will compile for:
 * a TaskManager whose own configuration names its profile overrides the job's setting for both.
 */
class ClassifierHardwareTest {
    @Test
    void aTaskManagersOwnProfileIsWhatTheClassifierEstimatesFor() throws Exception {
        assertThat(estimatingFor("cpu-avx2")).isEqualTo("cpu-avx2");
        assertThat(estimatingFor(null))
                .as("without one, the job's setting")
                .isEqualTo("cpu-generic");
    }

    /** The profile a classifier of a job set to cpu-generic estimates for on this TaskManager. */
    private static String estimatingFor(String taskManagerProfile) throws Exception {
        DecodeAndClassifyFunction fn =
                FlinkFunctionsTest.classifier().withHardware("cpu-generic", null, 1);
        try (KeyedBroadcastOperatorTestHarness<String, ?, ?, ?> h =
                new KeyedBroadcastOperatorTestHarness<>(
                        new CoBroadcastWithKeyedOperator<>(fn, List.of(ControlCommand.STATE)),
                        r -> RequestKeys.key(r),
                        Types.STRING,
                        1,
                        1,
                        0)) {
            if (taskManagerProfile != null) {
                h.getEnvironment()
                        .getTaskManagerInfo()
                        .getConfiguration()
                        .setString(TaskManagerHardware.HARDWARE_PROFILE_KEY, taskManagerProfile);
            }
            h.open();
            return fn.estimatingFor();
        }
    }
}

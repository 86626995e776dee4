package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.cli.ZeroLayerCli;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The CLI's {@code main} run as Flink runs it for a submitted job, with a cluster's context
 * environment: it must not exit the JVM (there, the JobManager's), on success or failure. Were it
 * to, this test's JVM would end and the build with it.
 */
class CliInsideFlinkITCase {
    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(1)
                            .build());

    @Test
    void aSucceedingCommandReturnsAndAFailingOneThrowsInsteadOfExiting() {
        ZeroLayerCli.main(new String[] {"--version"});
        assertThatThrownBy(() -> ZeroLayerCli.main(new String[] {"check", "no-such.prompt"}))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("failed with exit code 2");
    }
}

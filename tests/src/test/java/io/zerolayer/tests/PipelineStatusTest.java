package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cli.ZeroLayerCli;
import org.junit.jupiter.api.Test;

/** {@code zerolayer status} against an endpoint that does not answer: exit 1, not a stack trace. */
class PipelineStatusTest {
    @Test
    void anUnreachableEndpointExitsOne() {
        int exit =
                ZeroLayerCli.commandLine()
                        .execute("status", "--metrics-url", "http://127.0.0.1:9/metrics");
        assertThat(exit).isEqualTo(1);
    }
}

package io.zerolayer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServeEndpointTest {

    @Test
    void statusFindsTheServeThatIsRunningNotOneThatIsGone(@TempDir Path folder) throws Exception {
        assertThat(ServeEndpoint.findLive(folder)).isEmpty();
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        new ServeEndpoint(gone.pid(), URI.create("http://localhost:9250/metrics"), 4, "x:1")
                .write(folder);
        assertThat(ServeEndpoint.findLive(folder)).isEmpty();

        ServeEndpoint live =
                new ServeEndpoint(
                        ProcessHandle.current().pid(),
                        URI.create("http://localhost:9251/metrics"),
                        2,
                        "localhost:9092");
        live.write(folder);
        assertThat(ServeEndpoint.findLive(folder)).contains(live);
    }
}

package io.zerolayer.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Option;

/** Options shared by the commands that run the job: the config folder and {@code -D} overrides. */
final class PipelineSettings {
    @Option(
            names = "--config-dir",
            description =
                    "Folder with config.yaml (Flink 2.x format). Default: ./flink-conf when"
                            + " present.")
    Path configDir;

    @Option(
            names = "-D",
            paramLabel = "KEY=VALUE",
            description =
                    "Override a Flink or zerolayer.* setting, e.g."
                            + " -Dzerolayer.graph-cache.capacity=16.")
    Map<String, String> overrides = new LinkedHashMap<>();

    Configuration load() {
        return FlinkConfigLoader.load(
                configDir != null ? configDir : FlinkConfigLoader.defaultDir(), overrides);
    }
}

package io.zerolayer.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;

/**
 * Reads {@code flink-conf/config.yaml} (Flink 2.x format) and applies {@code -D key=value}
 * overrides.
 */
final class FlinkConfigLoader {
    private FlinkConfigLoader() {}

    static Configuration load(Path configDir, Map<String, String> overrides) {
        Configuration conf = new Configuration();
        if (configDir != null) {
            if (!Files.isRegularFile(configDir.resolve("config.yaml"))) {
                throw new IllegalArgumentException(
                        "No config.yaml in "
                                + configDir.toAbsolutePath()
                                + "; pass --config-dir pointing at the project's flink-conf/"
                                + " folder");
            }
            conf = GlobalConfiguration.loadConfiguration(configDir.toString());
            // files named in config.yaml are relative to its folder
            for (String key :
                    new String[] {
                        "zerolayer.precompile.file",
                        "zerolayer.contracts.file",
                        "zerolayer.hardware-profiles.file",
                        "zerolayer.prices.file"
                    }) {
                String value = conf.toMap().get(key);
                if (value != null && !Path.of(value).isAbsolute()) {
                    conf.setString(
                            key, configDir.resolve(value).toAbsolutePath().normalize().toString());
                }
            }
        }
        overrides.forEach(conf::setString);
        return conf;
    }

    /** The project's flink-conf/ when run from the repository root, else none. */
    static Path defaultDir() {
        Path dir = Path.of("flink-conf");
        return Files.isRegularFile(dir.resolve("config.yaml")) ? dir : null;
    }
}

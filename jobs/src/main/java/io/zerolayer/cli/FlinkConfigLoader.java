package io.zerolayer.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads {@code flink-conf/config.yaml} (Flink 2.x format) and applies {@code -D key=value}
 * overrides.
 */
final class FlinkConfigLoader {
    private FlinkConfigLoader() {}

    private static final Logger LOG = LoggerFactory.getLogger(FlinkConfigLoader.class);

    /** Files that config.yaml may name relative to its own folder. */
    private static final String[] FILE_KEYS = {
        "zerolayer.precompile.file",
        "zerolayer.contracts.file",
        "zerolayer.hardware-profiles.file",
        "zerolayer.models.file",
        "zerolayer.quality-profiles.file",
        "zerolayer.prices.file"
    };

    static Configuration load(Path configDir, Map<String, String> overrides) {
        return load(null, configDir, overrides);
    }

    /**
     * @param cluster the cluster's configuration when run inside one, else null
     * @param configDir a folder with config.yaml, or null
     */
    static Configuration load(
            Configuration cluster, Path configDir, Map<String, String> overrides) {
        Configuration conf = new Configuration();
        java.util.List<String> sources = new java.util.ArrayList<>();
        if (cluster != null) {
            conf.addAll(cluster);
            String clusterDir = System.getenv("FLINK_CONF_DIR");
            if (clusterDir != null) {
                resolveFiles(conf, Path.of(clusterDir));
            }
            sources.add(
                    "the cluster's configuration"
                            + (clusterDir == null ? "" : " (" + clusterDir + "/config.yaml)"));
        }
        if (configDir != null) {
            if (!Files.isRegularFile(configDir.resolve("config.yaml"))) {
                throw new IllegalArgumentException(
                        "No config.yaml in "
                                + configDir.toAbsolutePath()
                                + "; pass --config-dir pointing at the project's flink-conf/"
                                + " folder");
            }
            Configuration file = GlobalConfiguration.loadConfiguration(configDir.toString());
            resolveFiles(file, configDir);
            conf.addAll(file);
            sources.add(configDir.resolve("config.yaml").toAbsolutePath().normalize().toString());
        }
        overrides.forEach(conf::setString);
        if (!overrides.isEmpty()) {
            sources.add("-D");
        }
        if (conf.keySet().stream().noneMatch(k -> k.startsWith("zerolayer."))) {
            LOG.warn(
                    "No zerolayer.* settings in {}: the job runs on the built-in defaults of"
                            + " io.zerolayer.jobs.PipelineOptions (2 s checkpoints, the built-in"
                            + " contracts, prices and precompile list). zerolayer config"
                            + " --for-cluster prints what to merge into the cluster's config.yaml;"
                            + " or pass --config-dir.",
                    sources.isEmpty() ? "any configuration (no config.yaml found)" : sources);
        } else {
            LOG.info("Settings from {}", sources);
        }
        return conf;
    }

    /** Makes the files a config.yaml names relative to its folder absolute. */
    private static void resolveFiles(Configuration conf, Path folder) {
        for (String key : FILE_KEYS) {
            String value = conf.toMap().get(key);
            if (value != null && !Path.of(value).isAbsolute()) {
                conf.setString(key, folder.resolve(value).toAbsolutePath().normalize().toString());
            }
        }
    }

    /** The configuration of the Flink cluster this program runs for. */
    static Configuration clusterConfiguration() {
        return Configuration.fromMap(
                org.apache.flink.streaming.api.environment.StreamExecutionEnvironment
                        .getExecutionEnvironment()
                        .getConfiguration()
                        .toMap());
    }

    /** The project's flink-conf/ when run from the repository root, else none. */
    static Path defaultDir() {
        Path dir = Path.of("flink-conf");
        return Files.isRegularFile(dir.resolve("config.yaml")) ? dir : null;
    }
}

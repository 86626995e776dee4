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
                            + " present, except inside a Flink cluster, whose own config.yaml"
                            + " is the settings.")
    Path configDir;

    @Option(
            names = "-D",
            paramLabel = "KEY=VALUE",
            description =
                    "Override a Flink or zerolayer.* setting, e.g."
                            + " -Dzerolayer.graph-cache.capacity=16.")
    Map<String, String> overrides = new LinkedHashMap<>();

    @Option(
            names = "--hardware-profile",
            description =
                    "auto (detect) or a hardware-profiles.yaml id; overrides"
                            + " zerolayer.hardware-profile.")
    String hardwareProfile;

    /** The tenant registry a command is given, else {@code zerolayer.tenants.file}, if either. */
    static java.util.Optional<Path> tenantsFile(Path given, Configuration conf) {
        return given != null
                ? java.util.Optional.of(given)
                : conf.getOptional(io.zerolayer.jobs.TenancyOptions.TENANTS_FILE).map(Path::of);
    }

    /**
     * The settings, later sources overriding earlier ones: inside a Flink cluster its own
     * configuration (the cluster's config.yaml, as the client or JobManager read it), then the
     * config folder ({@code --config-dir}, else, outside a cluster, ./flink-conf when present),
     * then {@code -D}. When neither holds a {@code zerolayer.*} setting, a WARN says the built-in
     * defaults apply. The encoders of {@code zerolayer.models.file} are added to the catalog,
     * checked, and {@code zerolayer.quality-profiles.file} is the profile tiers are chosen by.
     */
    Configuration load() {
        if (hardwareProfile != null) {
            overrides.put("zerolayer.hardware-profile", hardwareProfile);
        }
        // inside a cluster its config.yaml is the settings: a ./flink-conf where the client or
        // JobManager happens to run is not read unless named
        boolean insideFlink = ZeroLayerCli.insideFlink();
        Configuration conf =
                FlinkConfigLoader.load(
                        insideFlink ? FlinkConfigLoader.clusterConfiguration() : null,
                        configDir != null
                                ? configDir
                                : insideFlink ? null : FlinkConfigLoader.defaultDir(),
                        overrides);
        io.zerolayer.jobs.StreamingJob.installTiers(conf);
        return conf;
    }
}

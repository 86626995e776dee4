package io.zerolayer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.jobs.PipelineOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code zerolayer config --for-cluster} prints a block Flink reads back as the settings the job is
 * tuned for, each line under a comment saying why.
 */
class ConfigCommandTest {
    private static final Path FLINK_CONF = Path.of("..", "flink-conf");

    private static String run(String... args) {
        StringWriter out = new StringWriter();
        CommandLine cli = new CommandLine(new ZeroLayerCli());
        cli.setOut(new PrintWriter(out, true));
        assertThat(cli.execute(args)).isZero();
        return out.toString();
    }

    @Test
    void theBlockReadsBackAsTheTunedSettingsEachUnderAComment(@TempDir Path dir) throws Exception {
        String block =
                run(
                        "config",
                        "--for-cluster",
                        "--config-dir",
                        FLINK_CONF.toString(),
                        "-Dzerolayer.kafka.bootstrap-servers=kafka:9092",
                        "-Dzerolayer.batch.size=8",
                        "-Dzerolayer.graph-cache.capacity=64");
        Files.writeString(dir.resolve("config.yaml"), block);
        Configuration read = GlobalConfiguration.loadConfiguration(dir.toString());
        Configuration tuned = GlobalConfiguration.loadConfiguration(FLINK_CONF.toString());

        // Flink's settings as flink-conf/config.yaml tunes them, and the native libraries' patterns
        for (ConfigCommand.Setting s : ConfigCommand.FLINK) {
            assertThat(read.toMap().get(s.key()))
                    .as(s.key())
                    .isEqualTo(tuned.toMap().getOrDefault(s.key(), s.fallback()));
        }
        assertThat(read.toMap().get("classloader.parent-first-patterns.additional"))
                .isEqualTo(LocalCluster.PARENT_FIRST_PATTERNS);
        // what -D gave, and a setting changed from its default with its option's description
        assertThat(read.toMap())
                .containsEntry("zerolayer.kafka.bootstrap-servers", "kafka:9092")
                .containsEntry("zerolayer.batch.size", "8")
                .doesNotContainKey("zerolayer.graph-cache.capacity") // its default
                .doesNotContainKey("zerolayer.precompile.file"); // built into the job
        // only keys the job knows, and every one under a comment
        Set<String> known =
                PipelineOptions.all().stream().map(o -> o.key()).collect(Collectors.toSet());
        assertThat(read.keySet().stream().filter(k -> k.startsWith("zerolayer.")))
                .allMatch(known::contains);
        List<String> lines = block.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            if (!lines.get(i).isBlank() && !lines.get(i).startsWith("#")) {
                assertThat(lines.get(i - 1)).as(lines.get(i)).startsWith("# ");
            }
        }
        // a required setting without a value is a commented line, not a wrong value
        assertThat(block)
                .contains("# zerolayer.tenants.file: …")
                .contains("# execution.checkpointing.dir: …")
                .contains("# execution.checkpointing.savepoint-dir: …");
    }

    @Test
    void withoutForClusterItPrintsEveryZerolayerSettingInForce() {
        String all =
                run("config", "--config-dir", FLINK_CONF.toString(), "-Dzerolayer.batch.size=8");
        assertThat(all).contains("zerolayer.batch.size: 8").doesNotContain("heartbeat.");
    }

    @Test
    void valuesYamlWouldMisreadAreQuoted() {
        assertThat(ConfigCommand.yaml("0 ms")).isEqualTo("0 ms");
        assertThat(ConfigCommand.yaml("a: b")).isEqualTo("'a: b'");
        assertThat(ConfigCommand.yaml("x #y")).isEqualTo("'x #y'");
        assertThat(ConfigCommand.yaml("'x'")).isEqualTo("'''x'''");
        assertThat(ConfigCommand.yaml("*.x")).isEqualTo("'*.x'");
    }
}

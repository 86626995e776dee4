package io.zerolayer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.HardwareOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FlinkConfigLoaderTest {

    @Test
    void aJobOnAClusterTakesTheClustersSettingsThenTheConfigFolderThenOverrides(@TempDir Path dir)
            throws Exception {
        Configuration cluster = new Configuration();
        cluster.setString("zerolayer.checkpoint-interval", "5 s");
        cluster.setString("zerolayer.graph-cache.capacity", "16");
        cluster.setString("zerolayer.onnx.intra-op-threads", "2");

        Configuration onlyCluster = FlinkConfigLoader.load(cluster, null, Map.of());
        assertThat(onlyCluster.get(ExecutorOptions.CHECKPOINT_INTERVAL))
                .isEqualTo(Duration.ofSeconds(5));

        Files.writeString(
                dir.resolve("config.yaml"),
                "zerolayer:\n  graph-cache:\n    capacity: 32\n  precompile:\n    file: p.yaml\n");
        Configuration merged =
                FlinkConfigLoader.load(
                        cluster, dir, Map.of("zerolayer.onnx.intra-op-threads", "4"));
        assertThat(merged.get(ExecutorOptions.CHECKPOINT_INTERVAL))
                .isEqualTo(Duration.ofSeconds(5)); // the cluster's, untouched by the folder
        assertThat(merged.get(ExecutorOptions.GRAPH_CACHE_CAPACITY)).isEqualTo(32); // folder wins
        assertThat(merged.get(HardwareOptions.INTRA_OP_THREADS)).isEqualTo(4); // -D wins
        assertThat(merged.get(ExecutorOptions.PRECOMPILE_FILE))
                .isEqualTo(dir.resolve("p.yaml").toAbsolutePath().normalize().toString());
    }

    @Test
    void withNoSettingsAnywhereTheBuiltInDefaultsApply() {
        Configuration none = FlinkConfigLoader.load(new Configuration(), null, Map.of());
        assertThat(none.keySet()).noneMatch(k -> k.startsWith("zerolayer."));
        assertThat(none.get(ExecutorOptions.CHECKPOINT_INTERVAL))
                .isEqualTo(ExecutorOptions.CHECKPOINT_INTERVAL.defaultValue());
    }
}

package io.zerolayer.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.operators.warmup.PrecompileList;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The files the job ships (precompile list, price sheet, contracts) are built into it: a cluster's
 * config names one only to use its own, so a {@code zerolayer:} block copied into a cluster's
 * config.yaml needs no file beside it.
 */
class ShippedFilesTest {
    private static final Path FLINK_CONF = Path.of("..", "flink-conf");

    @Test
    void withNoSettingTheJobUsesTheCopiesBuiltIntoIt() throws Exception {
        Configuration none = new Configuration();
        assertThat(JobFunctions.precompile(none))
                .isEqualTo(
                        PrecompileList.parse(
                                Files.readString(FLINK_CONF.resolve("precompile.yaml"))));
        assertThat(JobFunctions.precompile(none).structures()).isNotEmpty();
        assertThat(JobFunctions.prices(none).version())
                .isEqualTo(
                        io.zerolayer.operators.costs.PriceSheet.load(
                                        FLINK_CONF.resolve("prices.yaml"))
                                .version());
        assertThat(JobFunctions.contracts(none).source())
                .isEqualTo(Files.readString(FLINK_CONF.resolve("tasks.yaml")));
    }

    @Test
    void aFileOverridesAndNoneTurnsThePrecompileListOff(@TempDir Path dir) throws Exception {
        Path own = dir.resolve("precompile.yaml");
        Files.writeString(own, "structures:\n  - name: one\n    prompt: \"<task:embed> x\"\n");
        Configuration conf = new Configuration();
        conf.set(ExecutorOptions.PRECOMPILE_FILE, own.toString());
        assertThat(JobFunctions.precompile(conf).structures())
                .extracting(PrecompileList.Structure::name)
                .containsExactly("one");
        conf.set(ExecutorOptions.PRECOMPILE_FILE, ExecutorOptions.NO_PRECOMPILE);
        assertThat(JobFunctions.precompile(conf)).isEqualTo(PrecompileList.NONE);
        conf.set(ExecutorOptions.PRECOMPILE_FILE, dir.resolve("missing.yaml").toString());
        assertThatThrownBy(() -> JobFunctions.precompile(conf))
                .hasMessageContaining("Cannot read zerolayer.precompile.file");
    }
}

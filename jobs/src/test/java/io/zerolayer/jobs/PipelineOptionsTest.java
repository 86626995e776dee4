package io.zerolayer.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.gpu.ArenaExtendStrategy;
import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.operators.tenants.AuthMode;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.GlobalConfiguration;
import org.junit.jupiter.api.Test;

/** Modes are typed options: written as the docs and config.yaml write them, checked on read. */
class PipelineOptionsTest {
    @Test
    void modesReadAsTheyAreWrittenInAnyCase() {
        Configuration conf =
                Configuration.fromMap(
                        Map.of(
                                "zerolayer.compliance.mode", "Strict",
                                "zerolayer.compliance.tenant-modes", "bank:strict,shop:STANDARD",
                                "zerolayer.safe-mode.policy", "strict",
                                "zerolayer.gpu.arena-extend-strategy", "kSameAsRequested",
                                "zerolayer.replies.delivery-guarantee", "Exactly-Once"));
        assertThat(conf.get(KafkaOptions.REPLY_DELIVERY)).isEqualTo(ReplyDelivery.EXACTLY_ONCE);
        assertThat(conf.get(TenancyOptions.COMPLIANCE_MODE)).isEqualTo(ComplianceMode.STRICT);
        assertThat(conf.get(TenancyOptions.SAFE_MODE_POLICY))
                .isEqualTo(SafeModePolicy.Policy.STRICT);
        var settings = PipelineOptions.execution(conf);
        assertThat(settings.gpu().arenaStrategy()).isEqualTo(ArenaExtendStrategy.SAME_AS_REQUESTED);
        assertThat(settings.tenantCompliance())
                .containsEntry("bank", ComplianceMode.STRICT)
                .containsEntry("shop", ComplianceMode.STANDARD);
    }

    @Test
    void theShippedConfigurationReadsWithItsDefaults() {
        Configuration conf =
                GlobalConfiguration.loadConfiguration(
                        Path.of("..", "flink-conf").toAbsolutePath().toString());
        assertThat(conf.get(TenancyOptions.COMPLIANCE_MODE)).isEqualTo(ComplianceMode.STANDARD);
        assertThat(conf.get(HardwareOptions.GPU_ARENA_STRATEGY))
                .isEqualTo(ArenaExtendStrategy.NEXT_POWER_OF_TWO);
        assertThat(PipelineOptions.execution(conf).failMainEveryNthBatch()).isZero();
        assertThat(conf.get(KafkaOptions.REPLY_DELIVERY)).isEqualTo(ReplyDelivery.AT_LEAST_ONCE);
        assertThat(conf.get(TenancyOptions.AUTH_MODE)).isEqualTo(AuthMode.HMAC);
    }

    @Test
    void requestsAreVerifiedUnlessNoneIsSetAndHmacNeedsATenantsFileThatParses(
            @org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        assertThat(new Configuration().get(TenancyOptions.AUTH_MODE)).isEqualTo(AuthMode.HMAC);
        assertThatThrownBy(() -> StreamingJob.checkAuthentication(new Configuration()))
                .hasMessageContaining("zerolayer.tenants.file")
                .hasMessageContaining("zerolayer.auth.mode: none");
        Path broken = dir.resolve("tenants.yaml");
        java.nio.file.Files.writeString(broken, "version: 1\ntenants: {}\n");
        Configuration withBroken = new Configuration();
        withBroken.set(TenancyOptions.TENANTS_FILE, broken.toString());
        assertThatThrownBy(() -> StreamingJob.checkAuthentication(withBroken))
                .hasMessageContaining("names no tenant");
        Configuration none = Configuration.fromMap(Map.of("zerolayer.auth.mode", "NONE"));
        assertThat(none.get(TenancyOptions.AUTH_MODE)).isEqualTo(AuthMode.NONE);
        StreamingJob.checkAuthentication(none); // a WARN, no tenants file needed
        Configuration typo = Configuration.fromMap(Map.of("zerolayer.auth.mode", "off"));
        assertThatThrownBy(() -> typo.get(TenancyOptions.AUTH_MODE))
                .hasStackTraceContaining("[hmac, none]");
    }

    @Test
    void aModeThatIsNoneSaysWhichThereAre() {
        Configuration mode = Configuration.fromMap(Map.of("zerolayer.compliance.mode", "lenient"));
        assertThatThrownBy(() -> mode.get(TenancyOptions.COMPLIANCE_MODE))
                .hasMessageContaining("zerolayer.compliance.mode")
                .hasStackTraceContaining("[standard, audited, strict]");
        Configuration delivery =
                Configuration.fromMap(
                        Map.of("zerolayer.replies.delivery-guarantee", "at_most_once"));
        assertThatThrownBy(() -> delivery.get(KafkaOptions.REPLY_DELIVERY))
                .hasStackTraceContaining("[at-least-once, exactly-once]");
        Configuration tenant =
                Configuration.fromMap(Map.of("zerolayer.compliance.tenant-modes", "bank:lenient"));
        assertThatThrownBy(() -> PipelineOptions.execution(tenant))
                .hasMessageContaining("zerolayer.compliance.tenant-modes, tenant 'bank'")
                .hasMessageContaining("standard, audited or strict");
    }
}

package io.zerolayer.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.operators.kafka.KafkaConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaOptionsTest {
    @Test
    void theJobsClientsTakeTheSettingsFileAndTheSettingsUnderThePrefixWhichWin(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("zerolayer-job.properties");
        Files.writeString(
                file,
                "security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\n"
                        + "sasl.jaas.config=x required;\n");
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, "kafka:9093");
        conf.set(KafkaOptions.CLIENT_SETTINGS_FILE, file.toString());
        conf.setString(KafkaOptions.CLIENT_PROPERTIES_PREFIX + "security.protocol", "SASL_SSL");
        conf.setString(KafkaOptions.CLIENT_PROPERTIES_PREFIX + "ssl.truststore.location", "/t.jks");
        KafkaConnection kafka = KafkaOptions.connection(conf);
        assertThat(kafka.bootstrapServers()).isEqualTo("kafka:9093");
        assertThat(kafka.clientProperties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("ssl.truststore.location", "/t.jks")
                .containsKey("sasl.jaas.config");
    }

    @Test
    void aSettingTheJobSetsPerClientIsRefusedWithTheOptionToUse() {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, "kafka:9093");
        conf.setString(KafkaOptions.CLIENT_PROPERTIES_PREFIX + "group.id", "mine");
        assertThatThrownBy(() -> KafkaOptions.connection(conf)).hasMessageContaining("'group.id'");
        assertThatThrownBy(() -> KafkaOptions.connection(new Configuration()))
                .hasMessageContaining(KafkaOptions.BOOTSTRAP_SERVERS.key());
    }
}

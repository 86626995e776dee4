package io.zerolayer.operators.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaConnectionTest {
    @Test
    void everyClientGetsTheSharedSettingsAndTheServersButLogsNeverShowAValue() {
        KafkaConnection kafka =
                new KafkaConnection(
                        "kafka:9093", KafkaConnection.scram("SASL_SSL", "acme", "s3cret-password"));
        assertThat(kafka.properties())
                .containsEntry("bootstrap.servers", "kafka:9093")
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        assertThat(kafka.properties().getProperty("sasl.jaas.config"))
                .contains("username=\"acme\"")
                .contains("password=\"s3cret-password\"");
        assertThat(kafka.toString())
                .contains("kafka:9093")
                .contains("sasl.jaas.config")
                .doesNotContain("s3cret");
        assertThat(kafka.with("ssl.truststore.location", "/t.jks").clientProperties())
                .containsKey("ssl.truststore.location");
    }

    @Test
    void settingsTheJobSetsPerClientCannotBeShared() {
        for (String key : KafkaConnection.RESERVED) {
            assertThatThrownBy(() -> new KafkaConnection("k:9092", Map.of(key, "x")))
                    .as(key)
                    .hasMessageContaining("'" + key + "'");
        }
        assertThatThrownBy(() -> new KafkaConnection("k:9092", Map.of("bootstrap.servers", "x")))
                .hasMessageContaining("zerolayer.kafka.bootstrap-servers");
        assertThatThrownBy(() -> new KafkaConnection(" ", Map.of()))
                .hasMessageContaining("bootstrap");
    }
}

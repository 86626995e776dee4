package io.zerolayer.cli;

import io.zerolayer.operators.kafka.ClientSettingsFile;
import io.zerolayer.operators.kafka.KafkaConnection;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code --command-config FILE}: Kafka client settings for a command's clients, as Kafka's own
 * tools take them (a properties file: {@code security.protocol}, {@code sasl.mechanism}, {@code
 * sasl.jaas.config}, TLS stores). Without it, the command connects in plaintext.
 */
final class KafkaClientFile {
    @Option(
            names = "--command-config",
            paramLabel = "FILE",
            description =
                    "Kafka client settings (a properties file, as for Kafka's own tools):"
                            + " security.protocol, sasl.mechanism, sasl.jaas.config, TLS stores.")
    Path file;

    /** The connection to {@code bootstrapServers} with the file's settings. */
    KafkaConnection connection(String bootstrapServers) {
        return new KafkaConnection(bootstrapServers, ClientSettingsFile.read(file));
    }
}

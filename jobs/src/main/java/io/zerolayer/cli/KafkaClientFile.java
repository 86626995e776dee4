package io.zerolayer.cli;

import io.zerolayer.operators.kafka.KafkaConnection;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
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
        return new KafkaConnection(bootstrapServers, read(file));
    }

    static Map<String, String> read(Path file) {
        Map<String, String> settings = new TreeMap<>();
        if (file == null) {
            return settings;
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read Kafka client settings " + file, e);
        }
        p.stringPropertyNames().forEach(k -> settings.put(k, p.getProperty(k)));
        return settings;
    }
}

package io.zerolayer.operators.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A file of Kafka client settings, as Kafka's own tools take them ({@code --command-config}): a
 * properties file of {@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config},
 * TLS stores. Files that hold a password are written owner-only.
 */
public final class ClientSettingsFile {
    private ClientSettingsFile() {}

    /** The settings in {@code file}; none when {@code file} is null. */
    public static Map<String, String> read(Path file) {
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

    /**
     * Writes {@code dir/<principal>.properties}, owner-only (the folder too, when it makes it): the
     * SASL/SCRAM-SHA-512 settings that sign in as {@code principal}.
     */
    public static Path write(Path dir, String principal, String password, String protocol) {
        try {
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(
                        dir,
                        PosixFilePermissions.asFileAttribute(
                                PosixFilePermissions.fromString("rwx------")));
            }
            Path file = dir.resolve(principal + ".properties");
            Files.deleteIfExists(file);
            Files.createFile(
                    file,
                    PosixFilePermissions.asFileAttribute(
                            PosixFilePermissions.fromString("rw-------")));
            Properties p = new Properties();
            p.putAll(KafkaConnection.scram(protocol, principal, password));
            try (var w = Files.newBufferedWriter(file)) {
                p.store(w, "Kafka client settings of " + principal + " (zerolayer tenants sync)");
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the client settings of " + principal, e);
        }
    }
}

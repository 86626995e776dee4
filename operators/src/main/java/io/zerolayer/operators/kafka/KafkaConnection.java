package io.zerolayer.operators.kafka;

import java.io.Serializable;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * How every Kafka client of the job reaches the cluster: its bootstrap servers and the client
 * settings they all share, above all authentication ({@code security.protocol}, {@code
 * sasl.mechanism}, {@code sasl.jaas.config}, TLS stores). Sources, sinks, admin clients and the
 * readers of committed records all take their settings from here, so a secured cluster needs them
 * set once. {@link #toString()} names the servers and the settings' keys, never their values.
 *
 * @param bootstrapServers {@code host:port,…}
 * @param clientProperties Kafka client settings for every client; never the ones the job sets
 *     itself ({@link #RESERVED})
 */
public record KafkaConnection(String bootstrapServers, Map<String, String> clientProperties)
        implements Serializable {

    /**
     * Client settings the job sets per client, for its guarantees: a shared value would break them
     * (a group id shared by every source, a transactional id shared by every sink …).
     */
    public static final Set<String> RESERVED =
            Set.of(
                    "bootstrap.servers",
                    "group.id",
                    "transactional.id",
                    "isolation.level",
                    "enable.idempotence",
                    "enable.auto.commit",
                    "key.serializer",
                    "value.serializer",
                    "key.deserializer",
                    "value.deserializer");

    public KafkaConnection {
        if (bootstrapServers == null || bootstrapServers.isBlank()) {
            throw new IllegalArgumentException("No Kafka bootstrap servers given");
        }
        clientProperties = Map.copyOf(new TreeMap<>(clientProperties));
        for (String key : clientProperties.keySet()) {
            if (RESERVED.contains(key)) {
                throw new IllegalArgumentException(
                        "Kafka client setting '"
                                + key
                                + "' cannot be shared by every client of the job: the job sets it"
                                + " per client"
                                + (key.equals("bootstrap.servers")
                                        ? " (set zerolayer.kafka.bootstrap-servers instead)"
                                        : ""));
            }
        }
    }

    /** A plaintext connection with no other setting. */
    public static KafkaConnection plaintext(String bootstrapServers) {
        return new KafkaConnection(bootstrapServers, Map.of());
    }

    /**
     * Client settings that sign in as {@code user} with SASL/SCRAM-SHA-512 over {@code
     * securityProtocol} ({@code SASL_SSL}, or {@code SASL_PLAINTEXT} on a trusted network).
     */
    public static Map<String, String> scram(String securityProtocol, String user, String password) {
        return Map.of(
                "security.protocol",
                securityProtocol,
                "sasl.mechanism",
                "SCRAM-SHA-512",
                "sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required username=\""
                        + user
                        + "\" password=\""
                        + password
                        + "\";");
    }

    /** The settings of a new client: the shared ones and the bootstrap servers. */
    public Properties properties() {
        Properties p = new Properties();
        p.putAll(clientProperties);
        p.put("bootstrap.servers", bootstrapServers);
        return p;
    }

    /** A copy that also carries {@code key = value}, replacing an earlier value of the key. */
    public KafkaConnection with(String key, String value) {
        Map<String, String> more = new TreeMap<>(clientProperties);
        more.put(key, value);
        return new KafkaConnection(bootstrapServers, more);
    }

    @Override
    public String toString() {
        return clientProperties.isEmpty()
                ? bootstrapServers
                : bootstrapServers + " with " + clientProperties.keySet();
    }
}

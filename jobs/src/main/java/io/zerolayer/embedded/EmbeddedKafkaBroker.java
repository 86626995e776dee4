package io.zerolayer.embedded;

import io.zerolayer.operators.kafka.KafkaConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node Kafka broker in KRaft mode (combined broker and controller), started in this
 * JVM: the storage is formatted like {@code kafka-storage.sh format} does, then {@link
 * KafkaRaftServer} runs on local ports. Data lives in the given folder, whose broker keeps its
 * ports across restarts, or in a temporary one on free ports that is deleted on close (or, when its
 * process was killed, by the next broker started without a folder).
 *
 * <pre>{@code
 * try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(null)) {
 *     broker.createTopics(Map.of("requests", 2));
 *     String bootstrap = broker.bootstrapServers();
 * }
 * }</pre>
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);

    /** How clients reach the broker. */
    public enum Security {
        /** Anyone who reaches the port may do anything; no authorizer. */
        PLAINTEXT,
        /**
         * Clients authenticate with SASL/SCRAM-SHA-512 and may do only what ACLs grant them
         * (Kafka's {@code StandardAuthorizer}, nothing allowed without an ACL); topics are created
         * only on purpose, never by a client asking for a name. The broker itself and {@link
         * #adminConnection()} use a listener of their own (SASL/PLAIN, one user: the admin, a super
         * user whose password lives in the data folder).
         */
        SCRAM
    }

    /** The broker's super user, on its internal listener. */
    public static final String ADMIN_USER = "admin";

    /**
     * One-second samples a client quota is judged over ({@code quota.window.num}): Kafka's default
     * 11 lets a flood starting cold send about ten seconds of its quota before the first throttle.
     */
    public static final int QUOTA_WINDOWS = 2;

    private final KafkaRaftServer server;
    private final Security security;
    private final String bootstrapServers;
    private final KafkaConnection admin;
    private final Path dataDir;
    private final boolean deleteOnClose;

    private EmbeddedKafkaBroker(
            KafkaRaftServer server,
            Security security,
            String bootstrapServers,
            KafkaConnection admin,
            Path dataDir,
            boolean deleteOnClose) {
        this.server = server;
        this.security = security;
        this.bootstrapServers = bootstrapServers;
        this.admin = admin;
        this.dataDir = dataDir;
        this.deleteOnClose = deleteOnClose;
    }

    /**
     * Formats storage and starts a plaintext broker.
     *
     * @param dataDir folder for logs and metadata; null for a temporary folder deleted on close
     */
    public static EmbeddedKafkaBroker start(Path dataDir) {
        return start(dataDir, Security.PLAINTEXT);
    }

    /**
     * Formats storage and starts the broker.
     *
     * @param dataDir folder for logs and metadata; null for a temporary folder deleted on close
     */
    public static EmbeddedKafkaBroker start(Path dataDir, Security security) {
        long started = System.nanoTime();
        try {
            boolean temporary = dataDir == null;
            Path dir;
            if (temporary) {
                BrokerDataFolders.removeAbandonedTemporaryFolders();
                dir = Files.createTempDirectory(BrokerDataFolders.TEMPORARY_PREFIX);
                Files.writeString(
                        dir.resolve(BrokerDataFolders.OWNER_FILE),
                        Long.toString(ProcessHandle.current().pid()));
            } else {
                dir = dataDir;
            }
            Path logs = dir.resolve("logs");
            Files.createDirectories(logs);
            int[] ports =
                    temporary
                            ? new int[] {
                                BrokerDataFolders.freePort(),
                                BrokerDataFolders.freePort(),
                                BrokerDataFolders.freePort()
                            }
                            : BrokerDataFolders.keptPorts(dir);
            int brokerPort = ports[0];
            int controllerPort = ports[1];
            Properties props = new Properties();
            props.put("process.roles", "broker,controller");
            props.put("node.id", "1");
            props.put("controller.quorum.voters", "1@localhost:" + controllerPort);
            props.put("controller.listener.names", "CONTROLLER");
            KafkaConnection admin;
            if (security == Security.SCRAM) {
                String password = BrokerDataFolders.adminPassword(dir);
                admin = scramListeners(props, brokerPort, controllerPort, ports[2], password);
            } else {
                props.put(
                        "listeners",
                        "PLAINTEXT://localhost:"
                                + brokerPort
                                + ",CONTROLLER://localhost:"
                                + controllerPort);
                props.put("advertised.listeners", "PLAINTEXT://localhost:" + brokerPort);
                props.put("inter.broker.listener.name", "PLAINTEXT");
                props.put(
                        "listener.security.protocol.map",
                        "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
                props.put("auto.create.topics.enable", "true");
                admin = KafkaConnection.plaintext("localhost:" + brokerPort);
            }
            props.put("log.dirs", logs.toString());
            props.put("offsets.topic.replication.factor", "1");
            props.put("offsets.topic.num.partitions", "4");
            props.put("transaction.state.log.replication.factor", "1");
            props.put("transaction.state.log.min.isr", "1");
            props.put("transaction.state.log.num.partitions", "4");
            props.put("share.coordinator.state.topic.replication.factor", "1");
            props.put("share.coordinator.state.topic.min.isr", "1");
            props.put("group.initial.rebalance.delay.ms", "0");
            props.put("num.partitions", "1");
            // room for large prompts (the contracts allow 32 MiB) and their dead letters
            props.put("message.max.bytes", String.valueOf(64 << 20));
            props.put("replica.fetch.max.bytes", String.valueOf(64 << 20));
            props.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
            props.put("quota.window.num", String.valueOf(QUOTA_WINDOWS));
            KafkaConfig config = KafkaConfig.fromProps(props, false);

            boolean formatted = Files.exists(logs.resolve("meta.properties"));
            if (!formatted) {
                Formatter formatter =
                        new Formatter()
                                .setNodeId(1)
                                .setClusterId(Uuid.randomUuid().toString())
                                .setDirectories(List.of(logs.toString()))
                                .setMetadataLogDirectory(logs.toString())
                                .setReleaseVersion(MetadataVersion.latestProduction())
                                .setControllerListenerName("CONTROLLER")
                                .setPrintStream(
                                        new java.io.PrintStream(
                                                java.io.OutputStream.nullOutputStream()));
                formatter.run();
            }
            KafkaRaftServer server = new KafkaRaftServer(config, Time.SYSTEM);
            server.startup();
            String bootstrap = "localhost:" + brokerPort;
            EmbeddedKafkaBroker broker =
                    new EmbeddedKafkaBroker(server, security, bootstrap, admin, dir, temporary);
            broker.awaitReady();
            LOG.info(
                    "Kafka {} KRaft broker up at {}{} (data in {}) in {} ms",
                    org.apache.kafka.common.utils.AppInfoParser.getVersion(),
                    bootstrap,
                    security == Security.SCRAM ? " (SASL/SCRAM-SHA-512, ACLs)" : "",
                    dir,
                    (System.nanoTime() - started) / 1_000_000);
            return broker;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot prepare the embedded Kafka data folder", e);
        } catch (Exception e) {
            throw new IllegalStateException(
                    "Embedded Kafka broker failed to start: " + e.getMessage(), e);
        }
    }

    /** Where clients connect: with SCRAM credentials when the broker is {@link Security#SCRAM}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** How clients reach the broker. */
    public Security security() {
        return security;
    }

    /** The broker's super user: plaintext on a plaintext broker, else its internal listener. */
    public KafkaConnection adminConnection() {
        return admin;
    }

    /**
     * The listeners of a {@link Security#SCRAM} broker: clients on {@code brokerPort} (SCRAM, what
     * ACLs allow), the broker itself and its admin on {@code internalPort} and the controller
     * (PLAIN, the admin only, a super user).
     */
    private static KafkaConnection scramListeners(
            Properties props,
            int brokerPort,
            int controllerPort,
            int internalPort,
            String password) {
        props.put(
                "listeners",
                "EXTERNAL://localhost:"
                        + brokerPort
                        + ",INTERNAL://localhost:"
                        + internalPort
                        + ",CONTROLLER://localhost:"
                        + controllerPort);
        props.put(
                "advertised.listeners",
                "EXTERNAL://localhost:" + brokerPort + ",INTERNAL://localhost:" + internalPort);
        props.put(
                "listener.security.protocol.map",
                "EXTERNAL:SASL_PLAINTEXT,INTERNAL:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT");
        props.put("inter.broker.listener.name", "INTERNAL");
        props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        props.put("sasl.mechanism.controller.protocol", "PLAIN");
        props.put("listener.name.external.sasl.enabled.mechanisms", "SCRAM-SHA-512");
        props.put(
                "listener.name.external.scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        String plain =
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
                        + ADMIN_USER
                        + "\" password=\""
                        + password
                        + "\" user_"
                        + ADMIN_USER
                        + "=\""
                        + password
                        + "\";";
        for (String listener : List.of("internal", "controller")) {
            props.put("listener.name." + listener + ".sasl.enabled.mechanisms", "PLAIN");
            props.put("listener.name." + listener + ".plain.sasl.jaas.config", plain);
        }
        props.put(
                "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:" + ADMIN_USER);
        props.put("allow.everyone.if.no.acl.found", "false");
        // a client asking for a missing name must not create it
        props.put("auto.create.topics.enable", "false");
        return plainAdmin(internalPort, password);
    }

    private static KafkaConnection plainAdmin(int internalPort, String password) {
        return new KafkaConnection(
                "localhost:" + internalPort,
                Map.of(
                        "security.protocol",
                        "SASL_PLAINTEXT",
                        "sasl.mechanism",
                        "PLAIN",
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.plain.PlainLoginModule required"
                                + " username=\""
                                + ADMIN_USER
                                + "\" password=\""
                                + password
                                + "\";"));
    }

    /**
     * The super user's connection to the SCRAM broker of {@code dataDir}, from another process (the
     * folder's ports and admin password); empty when the folder holds no SCRAM broker.
     */
    public static java.util.Optional<KafkaConnection> adminConnection(Path dataDir) {
        Path admin = dataDir.resolve(BrokerDataFolders.ADMIN_FILE);
        Path ports = dataDir.resolve(BrokerDataFolders.PORTS_FILE);
        if (!Files.exists(admin) || !Files.exists(ports)) {
            return java.util.Optional.empty();
        }
        try (var a = Files.newInputStream(admin);
                var p = Files.newInputStream(ports)) {
            Properties password = new Properties();
            password.load(a);
            Properties port = new Properties();
            port.load(p);
            return java.util.Optional.of(
                    plainAdmin(
                            Integer.parseInt(port.getProperty("internal")),
                            password.getProperty("password")));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the admin of " + dataDir, e);
        }
    }

    public Path dataDir() {
        return dataDir;
    }

    /** The names of the topics on the broker now. */
    public java.util.Set<String> topicNames() {
        try (Admin admin = admin()) {
            return admin.listTopics().names().get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("Cannot list the broker's topics", e);
        }
    }

    /** Creates topics (name → partitions) that do not exist yet. */
    public void createTopics(Map<String, Integer> partitionsByTopic) {
        partitionsByTopic.forEach(
                (name, partitions) -> create(new NewTopic(name, partitions, (short) 1)));
    }

    /** Creates topics that do not exist yet, each as described. */
    public void createTopics(java.util.Collection<NewTopic> topics) {
        topics.forEach(this::create);
    }

    /** Creates a log-compacted topic, for keyed latest-value data such as graph descriptors. */
    public void createCompactedTopic(String name, int partitions) {
        create(
                new NewTopic(name, partitions, (short) 1)
                        .configs(Map.of("cleanup.policy", "compact")));
    }

    private void create(NewTopic topic) {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(topic)).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException(
                        "Cannot create topic " + topic.name(), e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private Admin admin() {
        return Admin.create(admin.properties());
    }

    private void awaitReady() throws Exception {
        try (Admin admin = admin()) {
            admin.describeCluster().nodes().get(60, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
        if (deleteOnClose) {
            BrokerDataFolders.deleteRecursively(dataDir);
        }
    }
}

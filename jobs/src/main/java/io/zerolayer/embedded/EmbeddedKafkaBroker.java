package io.zerolayer.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
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

    private final KafkaRaftServer server;
    private final String bootstrapServers;
    private final Path dataDir;
    private final boolean deleteOnClose;

    private EmbeddedKafkaBroker(
            KafkaRaftServer server, String bootstrapServers, Path dataDir, boolean deleteOnClose) {
        this.server = server;
        this.bootstrapServers = bootstrapServers;
        this.dataDir = dataDir;
        this.deleteOnClose = deleteOnClose;
    }

    /**
     * Formats storage and starts the broker.
     *
     * @param dataDir folder for logs and metadata; null for a temporary folder deleted on close
     */
    public static EmbeddedKafkaBroker start(Path dataDir) {
        long started = System.nanoTime();
        try {
            boolean temporary = dataDir == null;
            Path dir;
            if (temporary) {
                removeAbandonedTemporaryFolders();
                dir = Files.createTempDirectory(TEMPORARY_PREFIX);
                Files.writeString(
                        dir.resolve(OWNER_FILE), Long.toString(ProcessHandle.current().pid()));
            } else {
                dir = dataDir;
            }
            Path logs = dir.resolve("logs");
            Files.createDirectories(logs);
            int[] ports = temporary ? new int[] {freePort(), freePort()} : keptPorts(dir);
            int brokerPort = ports[0];
            int controllerPort = ports[1];
            Properties props = new Properties();
            props.put("process.roles", "broker,controller");
            props.put("node.id", "1");
            props.put("controller.quorum.voters", "1@localhost:" + controllerPort);
            props.put(
                    "listeners",
                    "PLAINTEXT://localhost:"
                            + brokerPort
                            + ",CONTROLLER://localhost:"
                            + controllerPort);
            props.put("advertised.listeners", "PLAINTEXT://localhost:" + brokerPort);
            props.put("controller.listener.names", "CONTROLLER");
            props.put("inter.broker.listener.name", "PLAINTEXT");
            props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            props.put("log.dirs", logs.toString());
            props.put("offsets.topic.replication.factor", "1");
            props.put("offsets.topic.num.partitions", "4");
            props.put("transaction.state.log.replication.factor", "1");
            props.put("transaction.state.log.min.isr", "1");
            props.put("transaction.state.log.num.partitions", "4");
            props.put("share.coordinator.state.topic.replication.factor", "1");
            props.put("share.coordinator.state.topic.min.isr", "1");
            props.put("group.initial.rebalance.delay.ms", "0");
            props.put("auto.create.topics.enable", "true");
            props.put("num.partitions", "1");
            // room for large prompts (the contracts allow 32 MiB) and their dead letters
            props.put("message.max.bytes", String.valueOf(64 << 20));
            props.put("replica.fetch.max.bytes", String.valueOf(64 << 20));
            props.put("log.flush.interval.messages", String.valueOf(Long.MAX_VALUE));
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
            EmbeddedKafkaBroker broker = new EmbeddedKafkaBroker(server, bootstrap, dir, temporary);
            broker.awaitReady();
            LOG.info(
                    "Kafka {} KRaft broker up at {} (data in {}) in {} ms",
                    org.apache.kafka.common.utils.AppInfoParser.getVersion(),
                    bootstrap,
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

    public String bootstrapServers() {
        return bootstrapServers;
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
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
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
            deleteRecursively(dataDir);
        }
    }

    /** Prefix of the temporary folders of brokers started without a data folder. */
    static final String TEMPORARY_PREFIX = "zerolayer-kafka-";

    /** In a temporary folder: the pid of the process that owns it. */
    static final String OWNER_FILE = "owner.pid";

    /** In a data folder: the ports its broker listens on, kept so clients find it again. */
    static final String PORTS_FILE = "ports.properties";

    /**
     * The broker and controller ports of a data folder: those it used before, so that clients and
     * the committed offsets' bootstrap address stay valid across restarts; new free ones the first
     * time.
     */
    static int[] keptPorts(Path dir) throws IOException {
        Path file = dir.resolve(PORTS_FILE);
        Properties ports = new Properties();
        if (Files.exists(file)) {
            try (var in = Files.newInputStream(file)) {
                ports.load(in);
            }
            int broker = Integer.parseInt(ports.getProperty("broker"));
            int controller = Integer.parseInt(ports.getProperty("controller"));
            for (int port : new int[] {broker, controller}) {
                if (!isFree(port)) {
                    throw new IllegalStateException(
                            "Port "
                                    + port
                                    + ", which the broker of "
                                    + dir
                                    + " listens on, is taken: is another zerolayer serve using"
                                    + " this folder? Stop it, or delete "
                                    + file
                                    + " to take new ports (clients then need the new address)");
                }
            }
            return new int[] {broker, controller};
        }
        int[] fresh = {freePort(), freePort()};
        ports.setProperty("broker", Integer.toString(fresh[0]));
        ports.setProperty("controller", Integer.toString(fresh[1]));
        try (var out = Files.newOutputStream(file)) {
            ports.store(out, "Ports of the embedded broker of this data folder");
        }
        return fresh;
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new java.net.InetSocketAddress("localhost", port));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    /**
     * Deletes the temporary folders of brokers whose process has gone without closing them (killed,
     * or the JVM crashed), so a killed {@code serve} does not leave its data behind for good.
     */
    static void removeAbandonedTemporaryFolders() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> folders = Files.list(tmp)) {
            folders.filter(p -> p.getFileName().toString().startsWith(TEMPORARY_PREFIX))
                    .filter(EmbeddedKafkaBroker::abandoned)
                    .forEach(
                            p -> {
                                LOG.info("Removing {}, left by a broker that is gone", p);
                                deleteRecursively(p);
                            });
        } catch (IOException e) {
            LOG.debug("Cannot list {} for abandoned broker folders", tmp, e);
        }
    }

    private static boolean abandoned(Path folder) {
        try {
            long pid = Long.parseLong(Files.readString(folder.resolve(OWNER_FILE)).strip());
            return ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
        } catch (IOException | NumberFormatException e) {
            return false; // not ours to judge: no owner recorded
        }
    }

    private static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warn("Could not delete {}", dir, e);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}

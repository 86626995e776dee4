package io.zerolayer.tests.testutils;

import io.zerolayer.embedded.EmbeddedKafkaBroker;
import io.zerolayer.jobs.KafkaOptions;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real KRaft broker for a test class and its nested classes, plus the plain producer/consumer
 * calls tests need. Each test uses topics of its own ({@link #freshTopic}).
 *
 * <p>One broker per test class, not per test JVM: a broker and MiniCluster shared by every class of
 * a JVM were tried and showed no gain on this noisy machine (docs/testing.md), so the simpler
 * lifecycle stays. Surefire runs each class as a JUnit execution of its own: the class's end is
 * where this broker stops.
 *
 * <pre>{@code
 * @RegisterExtension static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();
 * }</pre>
 */
public final class EmbeddedKafkaExtension implements BeforeAllCallback, AfterAllCallback {
    private EmbeddedKafkaBroker broker;

    @Override
    public void beforeAll(ExtensionContext context) {
        if (SharedWithNestedClasses.nested(context)) {
            return; // the enclosing class's broker serves its nested classes
        }
        broker = EmbeddedKafkaBroker.start(null);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (SharedWithNestedClasses.nested(context)) {
            return;
        }
        if (broker != null) {
            broker.close();
        }
    }

    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    public EmbeddedKafkaBroker broker() {
        return broker;
    }

    /** A topic name no other test uses. */
    public static String freshTopic(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /**
     * Gives the job's verified tenants a reply namespace of their own in {@code conf} ({@code
     * zerolayer.replies.tenant-prefix}), and creates each {@link TestTenants} tenant's reply topic
     * in it, as {@code zerolayer tenants sync} does on a real cluster.
     */
    public void createFreshReplyTopics(org.apache.flink.configuration.Configuration conf) {
        String prefix = freshTopic("replies") + ".";
        conf.set(KafkaOptions.TENANT_REPLIES_PREFIX, prefix);
        Map<String, Integer> topics = new java.util.HashMap<>();
        TestTenants.IDS.forEach(id -> topics.put(prefix + id, 1));
        broker.createTopics(topics);
    }

    /**
     * The reply topics of every {@link TestTenants} tenant under {@code conf}, comma-separated as
     * {@link #read} and {@link #readToEnd} take them: verified requests that name no reply topic
     * are answered there.
     */
    public static String replies(org.apache.flink.configuration.Configuration conf) {
        return String.join(",", TestTenants.IDS.stream().map(id -> replyTopic(conf, id)).toList());
    }

    /** Where replies to {@code tenant}'s requests that name no topic go under {@code conf}. */
    public static String replyTopic(
            org.apache.flink.configuration.Configuration conf, String tenant) {
        return conf.get(KafkaOptions.TENANT_REPLIES_PREFIX) + tenant;
    }

    /**
     * Gives the streaming job fresh topics of its own (requests, responses, costs, graphs, cost
     * summary, dead letters, control, audit, its tenants' reply topics) in {@code conf}, and
     * creates them.
     *
     * @param requestPartitions partitions of the requests topic; the others get one
     */
    public void createFreshJobTopics(
            org.apache.flink.configuration.Configuration conf, int requestPartitions) {
        Map<String, Integer> topics = new java.util.HashMap<>();
        for (var option :
                List.of(
                        KafkaOptions.REQUESTS_TOPIC,
                        KafkaOptions.RESPONSES_TOPIC,
                        KafkaOptions.COSTS_TOPIC,
                        KafkaOptions.GRAPHS_TOPIC,
                        KafkaOptions.COST_SUMMARY_TOPIC,
                        KafkaOptions.DEAD_LETTERS_TOPIC,
                        KafkaOptions.CONTROL_TOPIC,
                        KafkaOptions.AUDIT_TOPIC)) {
            String topic = freshTopic(option.key().replaceAll("\\W", "-"));
            conf.set(option, topic);
            topics.put(topic, option == KafkaOptions.REQUESTS_TOPIC ? requestPartitions : 1);
        }
        broker.createTopics(topics);
        createFreshReplyTopics(conf);
    }

    /**
     * Sends one record; headers alternate name, value. A record whose value is a request of a
     * {@link TestTenants} tenant is signed with its key, as a client would sign it.
     */
    public void send(String topic, byte[] key, byte[] value, Object... headers) {
        send(true, topic, key, value, headers);
    }

    /** Sends one record exactly as given, never signed. */
    public void sendUnsigned(String topic, byte[] key, byte[] value, Object... headers) {
        send(false, topic, key, value, headers);
    }

    private void send(boolean sign, String topic, byte[] key, byte[] value, Object... headers) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers());
        p.put("max.request.size", String.valueOf(64 << 20));
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, key, value);
            for (int i = 0; i < headers.length; i += 2) {
                Object v = headers[i + 1];
                record.headers()
                        .add(
                                (String) headers[i],
                                v instanceof byte[] b
                                        ? b
                                        : v.toString().getBytes(StandardCharsets.UTF_8));
            }
            if (sign) {
                TestTenants.signIfRequest(record, TestTenants.registry());
            }
            producer.send(record);
        }
    }

    /**
     * Sends records in order through one producer, and waits until the broker has them all;
     * requests of {@link TestTenants} tenants are signed.
     */
    public void sendAll(List<ProducerRecord<byte[], byte[]>> records) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers());
        p.put("max.request.size", String.valueOf(64 << 20));
        p.put("buffer.memory", String.valueOf(96 << 20));
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (ProducerRecord<byte[], byte[]> r : records) {
                TestTenants.signIfRequest(r, TestTenants.registry());
                sent.add(producer.send(r));
            }
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(60, java.util.concurrent.TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new IllegalStateException("Sending test records failed", e);
        }
    }

    /**
     * Reads {@code topic} (or each of a comma-separated list) from the start ({@code
     * read_committed}) until {@code count} records came or the timeout passed, then keeps reading
     * for {@code settle} to catch any extra record.
     */
    public List<ConsumerRecord<byte[], byte[]>> read(
            String topic, int count, Duration timeout, Duration settle) {
        return readFromStart(topic, count, r -> false, timeout, settle);
    }

    /**
     * Reads {@code topic} from the start ({@code read_committed}) until a record satisfies {@code
     * until} or the timeout passed; returns every record read, the matching one included. Unlike
     * {@link #read} it does not depend on how many other records came before the one wanted.
     */
    public List<ConsumerRecord<byte[], byte[]>> readUntil(
            String topic, Predicate<ConsumerRecord<byte[], byte[]>> until, Duration timeout) {
        return readFromStart(topic, Integer.MAX_VALUE, until, timeout, Duration.ZERO);
    }

    /**
     * Every committed record of {@code topic} now ({@code read_committed}, up to each partition's
     * last stable offset), without waiting for more.
     */
    public List<ConsumerRecord<byte[], byte[]>> readToEnd(String topic) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = partitions(consumer, topic);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Could not read " + topic + " to its end");
                }
                consumer.poll(Duration.ofMillis(100)).forEach(out::add);
            }
        }
        return out;
    }

    /**
     * A read_committed reader of every partition of {@code topics}, from their ends now: it sees
     * only what is written after this call, however much the topics already hold.
     */
    public Tail tail(List<String> topics) {
        return new Tail(bootstrapServers(), topics);
    }

    /** What {@link #tail} returns; close it. */
    public static final class Tail implements AutoCloseable {
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final List<TopicPartition> partitions = new ArrayList<>();

        private Tail(String bootstrapServers, List<String> topics) {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            consumer =
                    new KafkaConsumer<>(
                            p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            for (String topic : topics) {
                partitions.addAll(partitions(consumer, topic));
            }
            consumer.assign(partitions);
            consumer.seekToEnd(partitions);
            partitions.forEach(consumer::position); // fixes the start before anything is sent
        }

        /** The records that came within {@code wait}, possibly none. */
        public List<ConsumerRecord<byte[], byte[]>> poll(Duration wait) {
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            consumer.poll(wait).forEach(out::add);
            return out;
        }

        /** Every record up to each partition's last stable offset now. */
        public List<ConsumerRecord<byte[], byte[]>> toEnd() {
            List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Could not read " + partitions + " to the end");
                }
                consumer.poll(Duration.ofMillis(100)).forEach(out::add);
            }
            return out;
        }

        @Override
        public void close() {
            consumer.close();
        }
    }

    /**
     * The partitions of {@code topic} now, or of each topic of a comma-separated list (the reply
     * topics of every tenant of a test job); none of those that do not exist yet.
     */
    private static List<TopicPartition> partitions(
            KafkaConsumer<byte[], byte[]> consumer, String topic) {
        List<String> names = List.of(topic.split(","));
        List<TopicPartition> out = new ArrayList<>();
        consumer.listTopics(Duration.ofSeconds(30))
                .forEach(
                        (t, infos) -> {
                            if (names.contains(t)) {
                                infos.forEach(i -> out.add(new TopicPartition(t, i.partition())));
                            }
                        });
        return out;
    }

    /** Reads until {@code count} records came, one satisfies {@code until}, or time is up. */
    private List<ConsumerRecord<byte[], byte[]>> readFromStart(
            String topic,
            int count,
            Predicate<ConsumerRecord<byte[], byte[]>> until,
            Duration timeout,
            Duration settle) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            long deadline = System.nanoTime() + timeout.toNanos();
            while (partitions.isEmpty() && System.nanoTime() < deadline) {
                partitions.addAll(partitions(consumer, topic));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            boolean found = false;
            while (!found && out.size() < count && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(r);
                    found |= until.test(r);
                }
            }
            long settleUntil = System.nanoTime() + settle.toNanos();
            while (System.nanoTime() < settleUntil) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}

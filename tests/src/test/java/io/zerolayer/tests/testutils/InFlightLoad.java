package io.zerolayer.tests.testutils;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.auth.TenantCredentials;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Requests that take a while to summarize, each with a correlation id of its own, sent to a job
 * that is then killed or restarted, and the committed replies counted per correlation id as a
 * client reading {@code read_committed} sees them: what the restart and failover tests assert
 * exactly-once on.
 */
public final class InFlightLoad {
    private static final SingleObjectCodec<AnalysisRequest> CODEC =
            SingleObjectCodec.of(AnalysisRequest.class);

    private final String bootstrapServers;
    private final String requestsTopic;
    private final String replyTopic;
    private final int sentences;
    private TenantCredentials signingAs;

    /**
     * @param sentences sentences of each request's text: more make each one longer to answer
     */
    public InFlightLoad(String bootstrapServers, String replyTopic, int sentences) {
        this(bootstrapServers, "zerolayer.requests", replyTopic, sentences);
    }

    public InFlightLoad(
            String bootstrapServers, String requestsTopic, String replyTopic, int sentences) {
        this.bootstrapServers = bootstrapServers;
        this.requestsTopic = requestsTopic;
        this.replyTopic = replyTopic;
        this.sentences = sentences;
    }

    /**
     * Sends every request as this one tenant, signed with its key; by default requests alternate
     * between acme and globex, signed with their {@link TestTenants} keys.
     */
    /**
     * Signs in to Kafka with these client settings (a SCRAM broker's); the cost records are read
     * with {@code billing}'s.
     */
    public InFlightLoad kafkaSettings(Map<String, String> requester, Map<String, String> billing) {
        this.requester = Map.copyOf(requester);
        this.billing = Map.copyOf(billing);
        return this;
    }

    private Map<String, String> requester = Map.of();
    private Map<String, String> billing = Map.of();

    public InFlightLoad signingAs(TenantCredentials credentials) {
        this.signingAs = credentials;
        return this;
    }

    /** Sends requests {@code from} … {@code from + count - 1} to the requests topic. */
    public void send(int from, int count) {
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        settings(requester),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            for (int i = from; i < from + count; i++) {
                ProducerRecord<byte[], byte[]> r =
                        new ProducerRecord<>(requestsTopic, CODEC.encode(request(i)));
                r.headers().add(ZeroLayerHeaders.REPLY_TOPIC, replyTopic.getBytes());
                r.headers().add(ZeroLayerHeaders.CORRELATION_ID, ("c-" + i).getBytes());
                if (signingAs != null) {
                    signingAs.sign(r.headers(), "load-" + i, r.value());
                } else {
                    TestTenants.signIfRequest(r, TestTenants.registry());
                }
                producer.send(r);
            }
        }
    }

    private AnalysisRequest request(int i) {
        StringBuilder text = new StringBuilder();
        for (int s = 0; s < sentences; s++) {
            text.append("Turbine ")
                    .append(i)
                    .append(" logged vibration level ")
                    .append(s * 7 % 13)
                    .append(" at hour ")
                    .append(s)
                    .append(" of the inspection. ");
        }
        return AnalysisRequest.newBuilder()
                .setRequestId("load-" + i)
                .setTenantId(
                        signingAs != null ? signingAs.tenantId() : i % 2 == 0 ? "acme" : "globex")
                .setPrompt("<task:summarize sentences=\"2\"><output_format:json>" + text)
                .setSubmittedAt(Instant.now())
                .setAttributes(Map.of())
                .build();
    }

    /**
     * Committed replies per correlation id, read until at least {@code count} requests have one or
     * the timeout passed.
     */
    public Map<String, Integer> replies(int count, Duration timeout) {
        Map<String, Integer> perRequest = new HashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            perRequest.clear();
            for (ConsumerRecord<byte[], byte[]> r : committed(replyTopic)) {
                Header h = r.headers().lastHeader(ZeroLayerHeaders.CORRELATION_ID);
                perRequest.merge(new String(h.value(), StandardCharsets.UTF_8), 1, Integer::sum);
            }
        } while (perRequest.size() < count && System.nanoTime() < deadline);
        return perRequest;
    }

    /**
     * The {@code x-zerolayer-reply-id} of every committed reply, per correlation id, read until at
     * least {@code count} requests have one or the timeout passed.
     */
    public Map<String, List<String>> replyIds(int count, Duration timeout) {
        Map<String, List<String>> perRequest = new HashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        do {
            perRequest.clear();
            for (ConsumerRecord<byte[], byte[]> r : committed(replyTopic)) {
                Header correlation = r.headers().lastHeader(ZeroLayerHeaders.CORRELATION_ID);
                Header replyId = r.headers().lastHeader(ZeroLayerHeaders.REPLY_ID);
                perRequest
                        .computeIfAbsent(
                                new String(correlation.value(), StandardCharsets.UTF_8),
                                k -> new ArrayList<>())
                        .add(
                                replyId == null
                                        ? null
                                        : new String(replyId.value(), StandardCharsets.UTF_8));
            }
        } while (perRequest.size() < count && System.nanoTime() < deadline);
        return perRequest;
    }

    /**
     * Nano-USD billed per tenant by the committed kernel cost records of {@code costsTopic}, and
     * fails unless every record id is there once.
     */
    public Map<String, Long> billedPerTenant(String costsTopic) {
        Map<String, Long> perTenant = new java.util.TreeMap<>();
        Map<String, Integer> perId = new HashMap<>();
        var codec = SingleObjectCodec.of(io.zerolayer.schemas.KernelCostRecord.class);
        for (ConsumerRecord<byte[], byte[]> r : committed(costsTopic, billing)) {
            var c = codec.decode(r.value());
            perId.merge(c.getRecordId(), 1, Integer::sum);
            long nanoUsd =
                    c.getComputeNanoUsd()
                            + c.getMemoryNanoUsd()
                            + c.getPcieNanoUsd()
                            + c.getDeviceTimeNanoUsd();
            perTenant.merge(c.getTenantId(), nanoUsd, Long::sum);
        }
        perId.forEach(
                (id, n) -> {
                    if (n != 1) {
                        throw new AssertionError("cost record " + id + " written " + n + " times");
                    }
                });
        return perTenant;
    }

    private Map<String, Object> settings(Map<String, String> kafka) {
        Map<String, Object> all = new java.util.HashMap<>(kafka);
        all.put("bootstrap.servers", bootstrapServers);
        return all;
    }

    /** Every committed record of a topic (read_committed), read to the end it had. */
    public List<ConsumerRecord<byte[], byte[]>> committed(String topic) {
        return committed(topic, requester);
    }

    private List<ConsumerRecord<byte[], byte[]>> committed(
            String topic, Map<String, String> kafka) {
        Properties p = new Properties();
        p.putAll(settings(kafka));
        p.put("isolation.level", "read_committed");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions =
                    consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                            .map(i -> new TopicPartition(topic, i.partition()))
                            .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))
                    && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }
}

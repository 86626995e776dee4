package io.zerolayer.client;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.auth.TenantCredentials;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Asynchronous request/reply over Kafka, the way Spring's {@code ReplyingKafkaTemplate} does it:
 * each request carries a fresh {@code kafka_correlationId} and this client's {@code
 * kafka_replyTopic}; a background thread reads the reply topic ({@code read_committed}) and
 * completes the matching future with the first reply. A later reply to the same request (the job
 * sends one after a restart when its replies are at-least-once) is dropped and counted ({@link
 * #duplicateReplies()}).
 *
 * <pre>{@code
 * try (ZeroLayerClient client = ZeroLayerClient.builder()
 *         .bootstrapServers("localhost:9092")
 *         .requestsTopic("zerolayer.requests")
 *         .build()) {
 *     AnalysisResponse r = client.submit(request).get(30, TimeUnit.SECONDS);
 * }
 * }</pre>
 */
public final class ZeroLayerClient implements AutoCloseable {
    /** How many answered requests are remembered to recognise their duplicates. */
    static final int ANSWERED_REMEMBERED = 65_536;

    private final String requestsTopic;
    private final String replyTopic;
    private final boolean json;
    private final Duration timeout;
    private final KafkaProducer<byte[], byte[]> producer;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<String, CompletableFuture<AnalysisResponse>> pending =
            new ConcurrentHashMap<>();
    private final SingleObjectCodec<AnalysisRequest> requestCodec =
            SingleObjectCodec.of(AnalysisRequest.class);
    private final SingleObjectCodec<AnalysisResponse> responseCodec =
            SingleObjectCodec.of(AnalysisResponse.class);

    /** Correlation ids of the requests answered lately, to tell a duplicate from a stray reply. */
    private final Map<String, Boolean> answered =
            java.util.Collections.synchronizedMap(
                    new java.util.LinkedHashMap<>(1024, 0.75f, false) {
                        @Override
                        protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                            return size() > ANSWERED_REMEMBERED;
                        }
                    });

    private final java.util.concurrent.atomic.AtomicLong duplicates =
            new java.util.concurrent.atomic.AtomicLong();
    private final Thread listener;

    /** Who signs the requests; null: they go unsigned (a job with zerolayer.auth.mode none). */
    private final TenantCredentials credentials;

    private volatile boolean closed;
    private volatile Throwable listenerFailure;

    private ZeroLayerClient(Builder b) {
        this.requestsTopic = b.requestsTopic;
        this.replyTopic =
                b.replyTopic != null
                        ? b.replyTopic
                        // a signed client's replies stay in its tenant's namespace
                        : "zerolayer.replies."
                                + (b.credentials != null ? b.credentials.tenantId() + "." : "")
                                + UUID.randomUUID().toString().substring(0, 8);
        this.json = b.json;
        this.timeout = b.timeout;
        this.credentials = b.credentials;
        ensureTopic(b.settings(), replyTopic);

        Properties p = b.settings();
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, String.valueOf(64 << 20));
        producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());

        Properties c = b.settings();
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        List<TopicPartition> partitions =
                consumer.partitionsFor(replyTopic, Duration.ofSeconds(30)).stream()
                        .map(info -> new TopicPartition(info.topic(), info.partition()))
                        .toList();
        consumer.assign(partitions);
        consumer.seekToEnd(partitions);
        partitions.forEach(
                consumer::position); // resolve now, so no reply sent after this is skipped
        listener = new Thread(this::listen, "zerolayer-client-replies-" + replyTopic);
        listener.setDaemon(true);
        listener.start();
    }

    public static Builder builder() {
        return new Builder();
    }

    public String replyTopic() {
        return replyTopic;
    }

    /** Replies dropped because their request had been answered already. */
    public long duplicateReplies() {
        return duplicates.get();
    }

    /**
     * Sends one request, signed when the client has credentials; the future completes with its
     * reply or fails after the timeout.
     *
     * @throws IllegalArgumentException when the request names another tenant than the one this
     *     client signs for
     */
    public CompletableFuture<AnalysisResponse> submit(AnalysisRequest request) {
        if (credentials != null && !credentials.tenantId().equals(request.getTenantId())) {
            throw new IllegalArgumentException(
                    "This client signs for tenant '"
                            + credentials.tenantId()
                            + "', but request "
                            + request.getRequestId()
                            + " names tenant '"
                            + request.getTenantId()
                            + "'");
        }
        if (closed) {
            throw new IllegalStateException("ZeroLayerClient is closed");
        }
        if (listenerFailure != null) {
            throw new IllegalStateException(
                    "Reply listener failed; no reply can be received", listenerFailure);
        }
        byte[] correlation = uuidBytes(UUID.randomUUID());
        String key = HexFormat.of().formatHex(correlation);
        CompletableFuture<AnalysisResponse> future = new CompletableFuture<>();
        pending.put(key, future);
        ProducerRecord<byte[], byte[]> record =
                new ProducerRecord<>(
                        requestsTopic,
                        null,
                        request.getRequestId().getBytes(StandardCharsets.UTF_8),
                        json ? JsonCodec.writeRequest(request) : requestCodec.encode(request));
        record.headers().add(ZeroLayerHeaders.CORRELATION_ID, correlation);
        record.headers()
                .add(ZeroLayerHeaders.REPLY_TOPIC, replyTopic.getBytes(StandardCharsets.UTF_8));
        if (json) {
            record.headers()
                    .add(
                            ZeroLayerHeaders.CONTENT_TYPE,
                            ZeroLayerHeaders.JSON.getBytes(StandardCharsets.UTF_8));
        }
        if (credentials != null) {
            credentials.sign(record.headers(), request.getRequestId().toString(), record.value());
        }
        producer.send(
                record,
                (metadata, error) -> {
                    if (error != null) {
                        pending.remove(key);
                        future.completeExceptionally(error);
                    }
                });
        return future.orTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((r, e) -> pending.remove(key));
    }

    private void listen() {
        try {
            while (!closed) {
                for (ConsumerRecord<byte[], byte[]> record :
                        consumer.poll(Duration.ofMillis(200))) {
                    Header correlation =
                            record.headers().lastHeader(ZeroLayerHeaders.CORRELATION_ID);
                    if (correlation == null) {
                        continue;
                    }
                    String key = HexFormat.of().formatHex(correlation.value());
                    CompletableFuture<AnalysisResponse> future = pending.remove(key);
                    if (future == null) {
                        if (answered.containsKey(key)) {
                            duplicates.incrementAndGet();
                        }
                        continue; // a duplicate, another client's reply, or one that timed out
                    }
                    answered.put(key, Boolean.TRUE);
                    try {
                        Header type = record.headers().lastHeader(ZeroLayerHeaders.CONTENT_TYPE);
                        boolean jsonReply =
                                type != null
                                        && new String(type.value(), StandardCharsets.UTF_8)
                                                .startsWith(ZeroLayerHeaders.JSON);
                        future.complete(
                                jsonReply
                                        ? JsonCodec.readResponse(record.value())
                                        : responseCodec.decode(record.value()));
                    } catch (RuntimeException e) {
                        future.completeExceptionally(e);
                    }
                }
            }
        } catch (WakeupException e) {
            // closing
        } catch (Throwable t) {
            listenerFailure = t;
            pending.values().forEach(f -> f.completeExceptionally(t));
        } finally {
            consumer.close();
        }
    }

    @Override
    public void close() {
        closed = true;
        consumer.wakeup();
        try {
            listener.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(5));
    }

    private static void ensureTopic(Properties settings, String topic) {
        try (Admin admin = Admin.create(settings)) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) -1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new IllegalStateException(
                        "Cannot create reply topic " + topic + ": " + e.getCause().getMessage(), e);
            }
        } catch (Exception e) {
            throw new IllegalStateException(
                    "Cannot reach Kafka at "
                            + settings.getProperty("bootstrap.servers")
                            + " to create reply topic "
                            + topic,
                    e);
        }
    }

    private static byte[] uuidBytes(UUID id) {
        return ByteBuffer.allocate(16)
                .putLong(id.getMostSignificantBits())
                .putLong(id.getLeastSignificantBits())
                .array();
    }

    /** Builder of {@link ZeroLayerClient}; bootstrap servers are required. */
    public static final class Builder {
        private String bootstrapServers;
        private String requestsTopic = "zerolayer.requests";

        /** Null: a topic of its own, zerolayer.replies.[tenant.]random. */
        private String replyTopic;

        private boolean json;
        private Duration timeout = Duration.ofSeconds(60);
        private TenantCredentials credentials;
        private final Map<String, String> kafkaSettings = new java.util.TreeMap<>();

        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = Objects.requireNonNull(bootstrapServers);
            return this;
        }

        /**
         * Kafka client settings for the client's producer, consumer and admin, e.g. SASL/SCRAM
         * credentials ({@code security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config})
         * or TLS stores.
         */
        public Builder kafkaSettings(Map<String, String> settings) {
            kafkaSettings.putAll(settings);
            return this;
        }

        /** The Kafka client settings with the bootstrap servers. */
        Properties settings() {
            Properties p = new Properties();
            p.putAll(kafkaSettings);
            p.put("bootstrap.servers", bootstrapServers);
            return p;
        }

        public Builder requestsTopic(String topic) {
            this.requestsTopic = Objects.requireNonNull(topic);
            return this;
        }

        /** Topic replies come back on; by default one of this client's own. */
        public Builder replyTopic(String topic) {
            this.replyTopic = Objects.requireNonNull(topic);
            return this;
        }

        /** Send requests as JSON (and so get JSON replies) instead of Avro. */
        public Builder json(boolean json) {
            this.json = json;
            return this;
        }

        /**
         * Signs every request with this tenant's key, as a job with {@code zerolayer.auth.mode:
         * hmac} (the default) requires; requests must then name this tenant.
         */
        public Builder credentials(TenantCredentials credentials) {
            this.credentials = Objects.requireNonNull(credentials);
            return this;
        }

        public Builder timeout(Duration timeout) {
            this.timeout = Objects.requireNonNull(timeout);
            return this;
        }

        public ZeroLayerClient build() {
            if (bootstrapServers == null) {
                throw new IllegalArgumentException(
                        "ZeroLayerClient needs bootstrapServers, e.g. localhost:9092");
            }
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException(
                        "Reply timeout must be positive, got " + timeout);
            }
            return new ZeroLayerClient(this);
        }
    }
}

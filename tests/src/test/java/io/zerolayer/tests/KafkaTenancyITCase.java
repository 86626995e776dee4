package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.cli.ZeroLayerCli;
import io.zerolayer.embedded.EmbeddedKafkaBroker;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.JobTopic;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.StreamingJob;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.kafka.KafkaConnection;
import io.zerolayer.operators.tenants.KafkaTenancy;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.TestTenants;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tenancy enforced by Kafka itself: a broker with SASL/SCRAM and ACLs only ({@code
 * EmbeddedKafkaBroker.Security.SCRAM}), set up by {@code zerolayer tenants sync} from the tenant
 * registry, and the real job signing in as its own principal. A tenant writes requests and reads
 * its own replies; it cannot read another tenant's replies, the bill or the audit chain, nor write
 * the job's topics; a wrong password is refused; a tenant taken out of the registry loses its user.
 */
class KafkaTenancyITCase {
    private static final int SLOTS = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final SingleObjectCodec<AnalysisRequest> REQUESTS =
            SingleObjectCodec.of(AnalysisRequest.class);
    private static final SingleObjectCodec<AnalysisResponse> RESPONSES =
            SingleObjectCodec.of(AnalysisResponse.class);
    private static final SingleObjectCodec<KernelCostRecord> COSTS =
            SingleObjectCodec.of(KernelCostRecord.class);

    @RegisterExtension
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(SLOTS)
                            .build());

    @TempDir static Path dir;

    private static EmbeddedKafkaBroker broker;
    private static Configuration topics;

    @BeforeAll
    static void startBroker() {
        broker = EmbeddedKafkaBroker.start(null, EmbeddedKafkaBroker.Security.SCRAM);
        topics = new Configuration();
        try (Admin admin = Admin.create(broker.adminConnection().properties())) {
            admin.createTopics(JobTopic.of(topics, SLOTS).stream().map(JobTopic::newTopic).toList())
                    .all()
                    .get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stopBroker() {
        broker.close();
    }

    @Test
    void eachPrincipalReachesOnlyWhatItOwnsAndTheJobAnswersThroughItsOwn() throws Exception {
        Path registry = registry("acme", "globex");
        Path credentials = dir.resolve("credentials");
        String first = sync(registry, credentials);
        assertThat(first)
                .contains("created SCRAM user acme")
                .contains("created SCRAM user zerolayer-job")
                .contains("created SCRAM user zerolayer-billing")
                .contains("created topic zerolayer.replies.acme")
                .contains("created ACL User:acme DESCRIBE, WRITE on topic zerolayer.requests")
                .contains(
                        "set quota producer_byte_rate=" + ACME_BYTES_PER_SECOND + " on User:acme");
        assertThat(sync(registry, credentials))
                .as("a second sync")
                .contains("In sync: 2 tenant(s), nothing to change");

        KafkaConnection job = signedInAs(credentials, KafkaTenancy.JOB);
        KafkaConnection acme = signedInAs(credentials, "acme");
        KafkaConnection billing = signedInAs(credentials, KafkaTenancy.BILLING);

        JobClient running = startJob(job, registry);
        try {
            String replies = "zerolayer.replies.acme";
            send(acme, "zerolayer.requests", signedRequest("acme", "r-1", replies));
            List<ConsumerRecord<byte[], byte[]>> answered =
                    read(acme, replies, "zerolayer.replies.acme.client", 1);
            assertThat(RESPONSES.decode(answered.get(0).value()).getRequestId()).isEqualTo("r-1");
            List<ConsumerRecord<byte[], byte[]>> bill =
                    read(billing, "zerolayer.kernel-costs", KafkaTenancy.BILLING + "-report", 1);
            assertThat(COSTS.decode(bill.get(0).value()).getTenantId()).isEqualTo("acme");
            // a flood beyond acme's broker quota is throttled by the broker itself, and the
            // quiet tenant is answered meanwhile
            double throttled = flood(acme, 16, 4096);
            assertThat(throttled).as("acme's produce throttle time, ms").isPositive();
            KafkaConnection globex = signedInAs(credentials, "globex");
            // naming no reply topic: answered on globex's own, which sync created
            send(globex, "zerolayer.requests", signedRequest("globex", "g-1", null));
            assertThat(
                            RESPONSES
                                    .decode(
                                            read(
                                                            globex,
                                                            "zerolayer.replies.globex",
                                                            "zerolayer.replies.globex.client",
                                                            1)
                                                    .get(0)
                                                    .value())
                                    .getRequestId())
                    .isEqualTo("g-1");
            // a signed request cannot send its reply into another tenant's namespace
            send(
                    acme,
                    "zerolayer.requests",
                    signedRequest("acme", "r-2", "zerolayer.replies.globex"));
            // the flood's records are dead letters too (not requests): find r-2's
            List<ConsumerRecord<byte[], byte[]>> dead =
                    read(broker.adminConnection(), "zerolayer.requests-dlt", "admin-check", 17);
            ConsumerRecord<byte[], byte[]> r2 =
                    dead.stream()
                            .filter(r -> "r-2".equals(header(r, ZeroLayerHeaders.CORRELATION_ID)))
                            .findFirst()
                            .orElseThrow();
            assertThat(header(r2, ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                    .contains("outside tenant 'acme''s namespace");
        } finally {
            running.cancel().get();
        }

        // what acme does not own
        for (String topic :
                List.of(
                        "zerolayer.replies.globex",
                        "zerolayer.kernel-costs",
                        "zerolayer.audit",
                        "zerolayer.requests-dlt")) {
            assertThatThrownBy(() -> read(acme, topic, "zerolayer.replies.acme.spy", 1))
                    .as("acme reads %s", topic)
                    .isInstanceOf(TopicAuthorizationException.class);
        }
        assertThatThrownBy(() -> read(acme, "zerolayer.replies.acme", "someone-elses-group", 1))
                .as("a consumer group outside acme's namespace")
                .isInstanceOf(GroupAuthorizationException.class);
        for (String topic :
                List.of(
                        "zerolayer.control",
                        "zerolayer.kernel-costs",
                        "zerolayer.requests-dlt",
                        "zerolayer.replies.globex")) {
            assertThatThrownBy(() -> send(acme, topic, "{}".getBytes(StandardCharsets.UTF_8)))
                    .as("acme writes %s", topic)
                    .hasRootCauseInstanceOf(TopicAuthorizationException.class);
        }
        assertThatThrownBy(
                        () ->
                                send(
                                        new KafkaConnection(
                                                broker.bootstrapServers(),
                                                KafkaConnection.scram(
                                                        "SASL_PLAINTEXT",
                                                        "acme",
                                                        "not-its-password")),
                                        "zerolayer.requests",
                                        "{}".getBytes(StandardCharsets.UTF_8)))
                .as("a wrong password")
                .hasRootCauseInstanceOf(SaslAuthenticationException.class);

        // globex leaves the registry: its user and its ACLs go
        String after = sync(registry("acme"), credentials);
        assertThat(after)
                .contains("deleted SCRAM user globex")
                .contains(
                        "deleted ACL User:globex DESCRIBE, READ on topic"
                                + " zerolayer.replies.globex\n");
        KafkaConnection gone = signedInAs(credentials, "globex");
        assertThatThrownBy(() -> send(gone, "zerolayer.requests", new byte[] {1}))
                .hasRootCauseInstanceOf(SaslAuthenticationException.class);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** Acme's broker quota: a few KB a second, so a burst of requests is throttled. */
    private static final long ACME_BYTES_PER_SECOND = 4096;

    /** A registry of these tenants; acme with a broker quota on what it produces. */
    private static Path registry(String... tenants) throws Exception {
        Map<String, byte[]> keys = new LinkedHashMap<>();
        for (String t : tenants) {
            keys.put(t, TestTenants.key(t));
        }
        Path file = Files.createTempFile(dir, "tenants", ".yaml");
        Files.writeString(
                file,
                TenantRegistry.yamlOf(keys)
                        .replace(
                                "  \"acme\":\n",
                                "  \"acme\":\n    quotas: {kafka-produce-bytes-per-second: "
                                        + ACME_BYTES_PER_SECOND
                                        + "}\n"));
        return file;
    }

    /** Runs {@code zerolayer tenants sync} as the broker's admin; returns what it printed. */
    private static String sync(Path registry, Path credentials) throws Exception {
        Path admin = dir.resolve("admin.properties");
        Properties p = new Properties();
        p.putAll(broker.adminConnection().clientProperties());
        try (var w = Files.newBufferedWriter(admin)) {
            p.store(w, null);
        }
        StringWriter out = new StringWriter();
        var cli = ZeroLayerCli.commandLine();
        cli.setOut(new PrintWriter(out));
        int exit =
                cli.execute(
                        "tenants",
                        "sync",
                        "--bootstrap-servers",
                        broker.adminConnection().bootstrapServers(),
                        "--command-config",
                        admin.toString(),
                        "--tenants-file",
                        registry.toString(),
                        "--credentials-dir",
                        credentials.toString(),
                        "--security-protocol",
                        "SASL_PLAINTEXT");
        System.out.print(out);
        assertThat(exit).as("tenants sync:%n%s", out).isZero();
        return out.toString();
    }

    /** The client settings sync wrote for {@code principal}, on the broker's SCRAM listener. */
    private static KafkaConnection signedInAs(Path credentials, String principal) throws Exception {
        Properties p = new Properties();
        try (var r = Files.newBufferedReader(credentials.resolve(principal + ".properties"))) {
            p.load(r);
        }
        Map<String, String> settings = new LinkedHashMap<>();
        p.stringPropertyNames().forEach(k -> settings.put(k, p.getProperty(k)));
        return new KafkaConnection(broker.bootstrapServers(), settings);
    }

    private static JobClient startJob(KafkaConnection job, Path registry) throws Exception {
        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, job.bootstrapServers());
        job.clientProperties()
                .forEach((k, v) -> conf.setString(KafkaOptions.CLIENT_PROPERTIES_PREFIX + k, v));
        conf.set(TenancyOptions.TENANTS_FILE, registry.toString());
        conf.set(ExecutorOptions.PRECOMPILE_FILE, ExecutorOptions.NO_PRECOMPILE);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(SLOTS);
        StreamingJob.define(env, conf);
        return env.executeAsync(StreamingJob.JOB_NAME);
    }

    private static ProducerRecord<byte[], byte[]> signedRequest(
            String tenant, String id, String replyTopic) {
        AnalysisRequest request =
                AnalysisRequest.newBuilder()
                        .setRequestId(id)
                        .setTenantId(tenant)
                        .setPrompt("<task:embed> The invoice is overdue.")
                        .setSubmittedAt(Instant.now())
                        .build();
        ProducerRecord<byte[], byte[]> record =
                new ProducerRecord<>("zerolayer.requests", null, REQUESTS.encode(request));
        if (replyTopic != null) {
            record.headers()
                    .add(ZeroLayerHeaders.REPLY_TOPIC, replyTopic.getBytes(StandardCharsets.UTF_8));
        }
        record.headers().add(ZeroLayerHeaders.CORRELATION_ID, id.getBytes(StandardCharsets.UTF_8));
        TestTenants.credentials(tenant).sign(record.headers(), id, record.value());
        return record;
    }

    private static void send(KafkaConnection as, String topic, ProducerRecord<byte[], byte[]> r)
            throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer(as)) {
            producer.send(new ProducerRecord<>(topic, null, r.key(), r.value(), r.headers())).get();
        }
    }

    private static void send(KafkaConnection as, String topic, byte[] value) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer(as)) {
            producer.send(new ProducerRecord<>(topic, value)).get();
        }
    }

    /**
     * Sends {@code count} records of {@code bytes} each to the requests topic as fast as the broker
     * lets it; returns the producer's largest throttle time (ms) the broker imposed.
     */
    private static double flood(KafkaConnection as, int count, int bytes) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer(as)) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                sent.add(
                        producer.send(new ProducerRecord<>("zerolayer.requests", new byte[bytes])));
            }
            for (var f : sent) {
                f.get();
            }
            return producer.metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("produce-throttle-time-max"))
                    .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                    .max()
                    .orElse(0);
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(KafkaConnection as) {
        Properties p = as.properties();
        p.put("max.block.ms", "10000");
        p.put("delivery.timeout.ms", "60000");
        p.put("request.timeout.ms", "30000");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /**
     * At least {@code count} committed records of {@code topic}, read as {@code as} in consumer
     * group {@code group} (Kafka checks the group too).
     */
    private static List<ConsumerRecord<byte[], byte[]>> read(
            KafkaConnection as, String topic, String group, int count) {
        Properties p = as.properties();
        p.put("group.id", group);
        p.put("isolation.level", "read_committed");
        p.put("auto.offset.reset", "earliest");
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (out.size() < count && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        assertThat(out).as("records read from %s", topic).hasSizeGreaterThanOrEqualTo(count);
        return out;
    }
}

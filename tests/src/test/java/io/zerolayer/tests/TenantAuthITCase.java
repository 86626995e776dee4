package io.zerolayer.tests;

import static io.zerolayer.tests.testutils.EmbeddedKafkaExtension.replyTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.flink.ControlCommand;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.auth.TenantCredentials;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.EmbeddedKafkaExtension;
import io.zerolayer.tests.testutils.PrometheusCluster;
import io.zerolayer.tests.testutils.StreamingJobExtension;
import io.zerolayer.tests.testutils.TestTenants;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real job's door (zerolayer.auth.mode hmac, the default): a request runs, is answered and is
 * billed only when its tenant signed it, recently, once; everything else is a dead letter naming
 * why. Tenants change on a running job through the control topic.
 */
class TenantAuthITCase {
    private static final int SLOTS = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final SingleObjectCodec<AnalysisRequest> REQUESTS =
            SingleObjectCodec.of(AnalysisRequest.class);
    private static final SingleObjectCodec<AnalysisResponse> RESPONSES =
            SingleObjectCodec.of(AnalysisResponse.class);
    private static final SingleObjectCodec<KernelCostRecord> COSTS =
            SingleObjectCodec.of(KernelCostRecord.class);
    private static final PrometheusCluster METRICS = new PrometheusCluster(9350, 9359);

    @RegisterExtension
    @Order(1)
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = METRICS.extension(SLOTS);

    @RegisterExtension
    @Order(3)
    static final StreamingJobExtension JOB = new StreamingJobExtension(KAFKA, SLOTS, METRICS);

    private Configuration conf;

    @BeforeEach
    void settings() {
        conf = JOB.conf();
    }

    @Test
    void onlyRequestsTheirTenantSignedOnceAreExecutedAnsweredAndBilled() throws Exception {
        JOB.start();
        String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
        TenantCredentials it = TestTenants.credentials("it");

        ProducerRecord<byte[], byte[]> genuine = record(requests, "genuine", "corr-genuine");
        it.sign(genuine.headers(), "genuine", genuine.value());
        ProducerRecord<byte[], byte[]> unsigned = record(requests, "unsigned", "corr-unsigned");
        ProducerRecord<byte[], byte[]> forged = record(requests, "forged", "corr-forged");
        // signed for tenant it with a key that is not its own
        TenantCredentials.of("it", new byte[32]).sign(forged.headers(), "forged", forged.value());
        ProducerRecord<byte[], byte[]> redirected =
                record(requests, "redirected", "corr-redirected");
        it.sign(redirected.headers(), "redirected", redirected.value());
        redirected.headers().remove(ZeroLayerHeaders.REPLY_TOPIC);
        redirected
                .headers()
                .add(ZeroLayerHeaders.REPLY_TOPIC, "zerolayer.replies.attacker".getBytes());
        for (ProducerRecord<byte[], byte[]> r :
                List.of(genuine, unsigned, forged, redirected, genuine /* a replayed copy */)) {
            KAFKA.sendUnsigned(r.topic(), r.key(), r.value(), headers(r));
        }

        List<ConsumerRecord<byte[], byte[]>> dead =
                JOB.readCommitted(conf.get(KafkaOptions.DEAD_LETTERS_TOPIC), 4, TIMEOUT);
        assertThat(dead)
                .extracting(r -> header(r, ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                .satisfiesExactlyInAnyOrder(
                        m -> assertThat(m).startsWith("unsigned: "),
                        m -> assertThat(m).startsWith("bad-signature: "),
                        m -> assertThat(m).startsWith("bad-signature: "),
                        m -> assertThat(m).startsWith("replayed: tenant 'it' already sent"));
        assertThat(dead)
                .extracting(r -> header(r, ZeroLayerHeaders.CORRELATION_ID))
                .containsExactlyInAnyOrder(
                        "corr-unsigned", "corr-forged", "corr-redirected", "corr-genuine");

        List<ConsumerRecord<byte[], byte[]>> replies = JOB.readCommitted(JOB.replies(), 1, TIMEOUT);
        assertThat(replies)
                .singleElement()
                .satisfies(
                        r -> {
                            assertThat(RESPONSES.decode(r.value()).getRequestId())
                                    .isEqualTo("genuine");
                            assertThat(r.topic()).isEqualTo(replyTopic(conf, "it"));
                        });
        List<ConsumerRecord<byte[], byte[]>> costs =
                JOB.readCommitted(conf.get(KafkaOptions.COSTS_TOPIC), 1, TIMEOUT);
        // the alerts operators adopt query metrics this job reports (refusals by reason included)
        AlertRulesTest.assertEveryMetricQueriedIsIn(METRICS.scrape());
        assertThat(costs)
                .extracting(r -> COSTS.decode(r.value()).getRequestId())
                .isNotEmpty()
                .containsOnly("genuine");
    }

    @Test
    void reloadTenantsAddsATenantToTheRunningJobAndABrokenFileChangesNothing(@TempDir Path dir)
            throws Exception {
        Path file = dir.resolve("tenants.yaml");
        byte[] itKey = key(TestTenants.credentials("it"));
        Files.writeString(file, TenantRegistry.yamlOf(Map.of("it", itKey)));
        conf.set(TenancyOptions.TENANTS_FILE, file.toString());
        JOB.start();
        String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
        TenantCredentials globex = TestTenants.credentials("globex");

        sendAs(globex, requests, "before");
        assertThat(KAFKA.read(conf.get(KafkaOptions.DEAD_LETTERS_TOPIC), 1, TIMEOUT, Duration.ZERO))
                .extracting(r -> header(r, ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                .singleElement()
                .asString()
                .startsWith("unknown-tenant: tenant 'globex'");

        Files.writeString(file, TenantRegistry.yamlOf(Map.of("it", itKey, "globex", key(globex))));
        KAFKA.send(
                conf.get(KafkaOptions.CONTROL_TOPIC),
                null,
                new ControlCommand(ControlCommand.RELOAD_TENANTS, null).toJson());
        // the control topic and the requests are read apart: send until one is answered
        String answered = null;
        for (int attempt = 0; attempt < 30 && answered == null; attempt++) {
            sendAs(globex, requests, "after-" + attempt);
            List<ConsumerRecord<byte[], byte[]>> replies =
                    KAFKA.read(replyTopic(conf, "globex"), 1, Duration.ofSeconds(3), Duration.ZERO);
            if (!replies.isEmpty()) {
                answered = RESPONSES.decode(replies.get(0).value()).getRequestId();
            }
        }
        assertThat(answered).as("a globex request answered after the reload").startsWith("after-");

        Files.writeString(file, "version: 1\ntenants: {}\n");
        KAFKA.send(
                conf.get(KafkaOptions.CONTROL_TOPIC),
                null,
                new ControlCommand(ControlCommand.RELOAD_TENANTS, null).toJson());
        // every classifier and executor subtask has tried it and kept the tenants in force
        org.awaitility.Awaitility.await()
                .atMost(TIMEOUT)
                .until(
                        () ->
                                METRICS.sum(
                                                "flink_taskmanager_job_task_operator_command_outcome_control_commands_total",
                                                "command=\"reload_tenants\"",
                                                "outcome=\"ignored\"")
                                        >= 2 * SLOTS);
        sendAs(globex, requests, "after-broken-file");
        assertThat(
                        KAFKA.readUntil(
                                replyTopic(conf, "globex"),
                                r ->
                                        RESPONSES
                                                .decode(r.value())
                                                .getRequestId()
                                                .equals("after-broken-file"),
                                TIMEOUT))
                .extracting(r -> RESPONSES.decode(r.value()).getRequestId())
                .contains("after-broken-file");
    }

    /**
     * Spring's ReplyingKafkaTemplate, unchanged, signing through the client's interceptor: the
     * producer's configuration names the tenant and its key file, and nothing else changes.
     */
    @Test
    void aSpringReplyingKafkaTemplateSignsWithConfigurationOnly(@TempDir Path dir)
            throws Exception {
        JOB.start();
        Path keyFile = dir.resolve("it.key");
        Files.writeString(keyFile, java.util.HexFormat.of().formatHex(TestTenants.key("it")));
        String replies = EmbeddedKafkaExtension.freshTopic(replyTopic(conf, "it") + ".spring");
        KAFKA.broker().createTopics(Map.of(replies, 1));

        Map<String, Object> producer = new java.util.HashMap<>();
        producer.put("bootstrap.servers", KAFKA.bootstrapServers());
        producer.put(
                "key.serializer", org.apache.kafka.common.serialization.StringSerializer.class);
        producer.put(
                "value.serializer", org.apache.kafka.common.serialization.StringSerializer.class);
        producer.put(
                "interceptor.classes",
                io.zerolayer.client.SigningProducerInterceptor.class.getName());
        producer.put(io.zerolayer.client.SigningProducerInterceptor.TENANT, "it");
        producer.put(io.zerolayer.client.SigningProducerInterceptor.KEY_FILE, keyFile.toString());
        Map<String, Object> consumer = new java.util.HashMap<>();
        consumer.put("bootstrap.servers", KAFKA.bootstrapServers());
        consumer.put("group.id", replies + ".group");
        consumer.put("auto.offset.reset", "earliest");
        consumer.put(
                "key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class);
        consumer.put(
                "value.deserializer",
                org.apache.kafka.common.serialization.StringDeserializer.class);
        var container =
                new org.springframework.kafka.listener.KafkaMessageListenerContainer<
                        String, String>(
                        new org.springframework.kafka.core.DefaultKafkaConsumerFactory<>(consumer),
                        new org.springframework.kafka.listener.ContainerProperties(replies));
        var template =
                new org.springframework.kafka.requestreply.ReplyingKafkaTemplate<
                        String, String, String>(
                        new org.springframework.kafka.core.DefaultKafkaProducerFactory<>(producer),
                        container);
        template.setDefaultReplyTimeout(TIMEOUT);
        template.start();
        try {
            ProducerRecord<String, String> request =
                    new ProducerRecord<>(
                            conf.get(KafkaOptions.REQUESTS_TOPIC),
                            "{\"requestId\":\"spring-1\",\"tenantId\":\"it\","
                                    + "\"prompt\":\"<task:embed> Signed by configuration.\"}");
            request.headers()
                    .add(
                            new org.apache.kafka.common.header.internals.RecordHeader(
                                    org.springframework.kafka.support.KafkaHeaders.REPLY_TOPIC,
                                    replies.getBytes(StandardCharsets.UTF_8)));
            ConsumerRecord<String, String> reply =
                    template.sendAndReceive(request).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(reply.value());
            assertThat(json.get("requestId").asText()).isEqualTo("spring-1");
            assertThat(json.get("status").asText()).isEqualTo("OK");
        } finally {
            template.stop();
            template.destroy();
        }
    }

    private void sendAs(TenantCredentials who, String topic, String id) {
        ProducerRecord<byte[], byte[]> r = record(topic, id, "corr-" + id);
        AnalysisRequest request = REQUESTS.decode(r.value());
        request.setTenantId(who.tenantId());
        ProducerRecord<byte[], byte[]> signed =
                new ProducerRecord<>(topic, null, REQUESTS.encode(request));
        r.headers().forEach(h -> signed.headers().add(h));
        who.sign(signed.headers(), id, signed.value());
        KAFKA.sendUnsigned(topic, null, signed.value(), headers(signed));
    }

    private ProducerRecord<byte[], byte[]> record(String topic, String id, String correlation) {
        AnalysisRequest request =
                AnalysisRequest.newBuilder()
                        .setRequestId(id)
                        .setTenantId("it")
                        .setPrompt("<task:embed> who sent this?")
                        .setSubmittedAt(Instant.now())
                        .setAttributes(Map.of())
                        .build();
        ProducerRecord<byte[], byte[]> r =
                new ProducerRecord<>(topic, null, REQUESTS.encode(request));
        // no reply topic: a verified request is answered on its tenant's own topic
        r.headers().add(ZeroLayerHeaders.CORRELATION_ID, correlation.getBytes());
        return r;
    }

    private static Object[] headers(ProducerRecord<byte[], byte[]> r) {
        Header[] all = r.headers().toArray();
        Object[] out = new Object[all.length * 2];
        for (int i = 0; i < all.length; i++) {
            out[2 * i] = all[i].key();
            out[2 * i + 1] = all[i].value();
        }
        return out;
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] key(TenantCredentials credentials) {
        return TestTenants.key(credentials.tenantId());
    }
}

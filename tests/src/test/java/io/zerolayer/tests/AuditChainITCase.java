package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.cli.ZeroLayerCli;
import io.zerolayer.jobs.BillingOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.audit.AuditEntries;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.AuditRecordKind;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.audit.AuditChainHash;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.EmbeddedKafkaExtension;
import io.zerolayer.tests.testutils.PrometheusCluster;
import io.zerolayer.tests.testutils.StreamingJobExtension;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The real job's audit chain: a level-3 tenant's replies are appended to its chain, each once and
 * linked, with anchors of its head; {@code zerolayer audit verify} proves it intact, and names the
 * entry where a copy of it was edited, cut or added to.
 */
class AuditChainITCase {
    private static final int SLOTS = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final SingleObjectCodec<AnalysisRequest> REQUESTS =
            SingleObjectCodec.of(AnalysisRequest.class);
    private static final SingleObjectCodec<AnalysisResponse> RESPONSES =
            SingleObjectCodec.of(AnalysisResponse.class);
    private static final SingleObjectCodec<AuditEntry> AUDIT =
            SingleObjectCodec.of(AuditEntry.class);
    private static final PrometheusCluster METRICS = new PrometheusCluster(9370, 9379);

    @RegisterExtension
    @Order(1)
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = METRICS.extension(SLOTS);

    @RegisterExtension
    @Order(3)
    static final StreamingJobExtension JOB = new StreamingJobExtension(KAFKA, SLOTS, METRICS);

    @Test
    void aLevelThreeTenantsRepliesFormAChainThatVerifiesAndTamperingWithItIsNamed()
            throws Exception {
        Configuration conf = JOB.conf();
        conf.set(TenancyOptions.TENANT_COMPLIANCE_MODES, Map.of("globex", "strict"));
        conf.set(BillingOptions.AUDIT_ANCHOR_EVERY, 4);
        conf.set(BillingOptions.AUDIT_ANCHOR_INTERVAL, Duration.ofSeconds(1));
        JOB.start();
        Map<String, String> prompts = new HashMap<>();
        for (int i = 0; i < 15; i++) {
            send(conf, i % 3 == 0 ? "acme" : "globex", i, prompts);
        }
        Map<String, AnalysisResponse> replies = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r :
                KAFKA.read(JOB.replies(), 15, TIMEOUT, Duration.ZERO)) {
            AnalysisResponse response = RESPONSES.decode(r.value());
            replies.put(response.getRequestId(), response);
        }
        assertThat(replies).hasSize(15);

        // every globex reply in the chain once, none of acme's; the last anchor holds entry 10
        String topic = conf.get(KafkaOptions.AUDIT_TOPIC);
        List<ConsumerRecord<byte[], byte[]>> records =
                KAFKA.readUntil(
                        topic,
                        r -> {
                            AuditEntry e = AUDIT.decode(r.value());
                            return e.getKind() == AuditRecordKind.ANCHOR && e.getSequence() == 10;
                        },
                        TIMEOUT);
        List<AuditEntry> entries =
                records.stream()
                        .map(r -> AUDIT.decode(r.value()))
                        .filter(e -> e.getKind() == AuditRecordKind.ENTRY)
                        .toList();
        assertThat(entries)
                .extracting(AuditEntry::getRequestId)
                .containsExactlyInAnyOrderElementsOf(
                        prompts.keySet().stream().filter(id -> id.startsWith("globex")).toList());
        assertThat(entries)
                .extracting(AuditEntry::getSequence)
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L);
        for (AuditEntry e : entries) {
            AnalysisResponse reply = replies.get(e.getRequestId());
            assertThat(e.getPromptSha256())
                    .isEqualTo(AuditChainHash.sha256Hex(prompts.get(e.getRequestId())));
            assertThat(e.getOutputSha256()).isEqualTo(AuditChainHash.sha256Hex(reply.getOutput()));
            assertThat(e.getGraphId()).isEqualTo(reply.getGraphId());
            assertThat(e.getStructureId()).hasSize(64).isNotEqualTo(e.getGraphId());
            assertThat(e.getModel()).isEqualTo(reply.getAttributes().get("audit.model"));
            assertThat(e.getTime()).isEqualTo(reply.getTimings().getCompletedAt());
        }
        // an anchor after every 4 entries at the latest; the 1 s interval anchors sooner when
        // entries arrive slowly (on a loaded machine, 7 instead of 8), and holds the tail, 10
        List<Long> anchors =
                records.stream()
                        .map(r -> AUDIT.decode(r.value()))
                        .filter(e -> e.getKind() == AuditRecordKind.ANCHOR)
                        .map(AuditEntry::getSequence)
                        .toList();
        assertThat(anchors).endsWith(10L);
        long anchored = 0;
        for (long sequence : anchors) {
            assertThat(sequence - anchored)
                    .as("entries since the anchor before %d", sequence)
                    .isBetween(1L, 4L);
            anchored = sequence;
        }

        Verified intact = verify(topic);
        assertThat(intact.exitCode()).as(intact.output()).isZero();
        assertThat(intact.output())
                .startsWith("globex: intact, 10 entries, head 10 " + entries.get(9).getHash());
        Verified acme = verify(topic, "--tenant", "acme");
        assertThat(acme.exitCode()).isEqualTo(1);
        assertThat(acme.output()).contains("acme: BROKEN: no audit chain on " + topic);

        // copies of the topic, each tampered with at entry 5
        assertThat(
                        verify(
                                copy(
                                        records,
                                        at5(
                                                e ->
                                                        AuditEntry.newBuilder(e)
                                                                .setOutputSha256(
                                                                        AuditChainHash.sha256Hex(
                                                                                "another answer"))
                                                                .build()))))
                .satisfies(v -> assertThat(v.exitCode()).isEqualTo(1))
                .satisfies(
                        v ->
                                assertThat(v.output())
                                        .containsPattern(
                                                "globex: BROKEN after 4 good entries: entry 5 \\(at"
                                                        + " 0/\\d+\\) was edited"));
        assertThat(verify(copy(records, at5(e -> null))))
                .satisfies(v -> assertThat(v.exitCode()).isEqualTo(1))
                .satisfies(
                        v ->
                                assertThat(v.output())
                                        .contains(
                                                "globex: BROKEN after 4 good entries: entry 5 is"
                                                        + " missing: entry 6"));
        AuditEntry forged =
                AuditEntries.linked(
                        AuditEntry.newBuilder(entries.get(4)).setRequestId("forged").build(),
                        5,
                        entries.get(3).getHash());
        List<ConsumerRecord<byte[], byte[]>> inserted = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : records) {
            AuditEntry e = AUDIT.decode(r.value());
            if (e.getKind() == AuditRecordKind.ENTRY && e.getSequence() == 5) {
                inserted.add(withValue(r, AUDIT.encode(forged)));
            }
            inserted.add(r);
        }
        assertThat(verify(copy(inserted, UnaryOperator.identity())))
                .satisfies(v -> assertThat(v.exitCode()).isEqualTo(1))
                .satisfies(
                        v ->
                                assertThat(v.output())
                                        .containsPattern(
                                                "globex: BROKEN after 4 good entries: entry 5"
                                                        + " appears twice"));
        // a new job on the same topics, without the first one's state: the chain continues. It
        // resumes from the committed offsets, so requests the first job answered after its last
        // offset commit are answered, and chained, again: the chain must still be one chain
        JOB.cancel();
        JOB.start();
        for (int i = 15; i < 18; i++) {
            send(conf, "globex", i, prompts);
        }
        java.util.Set<String> chained = new java.util.HashSet<>();
        KAFKA.readUntil(
                topic,
                r -> {
                    AuditEntry e = AUDIT.decode(r.value());
                    if (e.getKind() == AuditRecordKind.ENTRY) {
                        chained.add(e.getRequestId());
                    }
                    return chained.containsAll(List.of("globex-15", "globex-16", "globex-17"));
                },
                TIMEOUT);
        Verified continued = verify(topic);
        assertThat(continued.exitCode()).as(continued.output()).isZero();
        assertThat(continued.output()).startsWith("globex: intact, ");
        assertThat(chained).hasSize(13);
    }

    /**
     * A ticket of {@code tenant}, request id {@code tenant-i}; its prompt put in {@code prompts}.
     */
    private static void send(
            Configuration conf, String tenant, int i, Map<String, String> prompts) {
        String id = tenant + "-" + i;
        String prompt = "<task:summarize><ticket>Ticket " + i + ": the parcel came late.</ticket>";
        prompts.put(id, prompt);
        AnalysisRequest r =
                AnalysisRequest.newBuilder()
                        .setRequestId(id)
                        .setTenantId(tenant)
                        .setPrompt(prompt)
                        .setSubmittedAt(Instant.now())
                        .setAttributes(Map.of())
                        .build();
        KAFKA.send(
                conf.get(KafkaOptions.REQUESTS_TOPIC),
                null,
                REQUESTS.encode(r),
                ZeroLayerHeaders.CORRELATION_ID,
                id);
    }

    private record Verified(int exitCode, String output) {}

    private static Verified verify(String topic, String... more) {
        StringWriter out = new StringWriter();
        var cli = ZeroLayerCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "audit",
                                "verify",
                                "--bootstrap-servers",
                                KAFKA.bootstrapServers(),
                                "--topic",
                                topic));
        args.addAll(List.of(more));
        int code = cli.execute(args.toArray(String[]::new));
        return new Verified(code, out.toString());
    }

    /** Changes entry 5 of a record list with {@code change}; a null result drops it. */
    private static UnaryOperator<ConsumerRecord<byte[], byte[]>> at5(
            UnaryOperator<AuditEntry> change) {
        return r -> {
            AuditEntry e = AUDIT.decode(r.value());
            if (e.getKind() != AuditRecordKind.ENTRY || e.getSequence() != 5) {
                return r;
            }
            AuditEntry changed = change.apply(e);
            return changed == null ? null : withValue(r, AUDIT.encode(changed));
        };
    }

    private static ConsumerRecord<byte[], byte[]> withValue(
            ConsumerRecord<byte[], byte[]> r, byte[] value) {
        return new ConsumerRecord<>(r.topic(), r.partition(), r.offset(), r.key(), value);
    }

    /**
     * A fresh topic holding {@code records}, each passed through {@code change} (null: left out).
     */
    private static String copy(
            List<ConsumerRecord<byte[], byte[]>> records,
            UnaryOperator<ConsumerRecord<byte[], byte[]>> change) {
        String topic = EmbeddedKafkaExtension.freshTopic("audit-copy");
        KAFKA.broker().createTopics(Map.of(topic, 1));
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(
                        Map.of("bootstrap.servers", KAFKA.bootstrapServers()),
                        new ByteArraySerializer(),
                        new ByteArraySerializer())) {
            for (ConsumerRecord<byte[], byte[]> r : records) {
                ConsumerRecord<byte[], byte[]> changed = change.apply(r);
                if (changed != null) {
                    producer.send(new ProducerRecord<>(topic, changed.key(), changed.value()));
                }
            }
        }
        return topic;
    }
}

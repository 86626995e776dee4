package io.zerolayer.tests;

import static io.zerolayer.tests.testutils.EmbeddedKafkaExtension.freshTopic;
import static io.zerolayer.tests.testutils.EmbeddedKafkaExtension.replyTopic;
import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.StreamingJob;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.EmbeddedKafkaExtension;
import io.zerolayer.tests.testutils.HostileRecords;
import io.zerolayer.tests.testutils.PrometheusCluster;
import io.zerolayer.tests.testutils.TestTenants;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hostile input through the real broker and job. One job serves the whole class with restarts
 * turned off, so a record that fails a task fails the job and every later check: for every record
 * sent, exactly one reply or one dead letter; the job still running after each test; and an
 * innocent request sent after the hostile ones answered.
 */
class HostileInputITCase {
    private static final int SLOTS = 2;
    private static final Duration OUTCOME_TIMEOUT = Duration.ofSeconds(120);

    /** Generous: the point is that it is answered at all while hostile records are about. */
    private static final Duration INNOCENT_TIMEOUT = Duration.ofSeconds(30);

    private static final SingleObjectCodec<AnalysisRequest> REQUESTS =
            SingleObjectCodec.of(AnalysisRequest.class);
    private static final SingleObjectCodec<AnalysisResponse> RESPONSES =
            SingleObjectCodec.of(AnalysisResponse.class);

    /** Prometheus ports of this class's cluster, clear of serve's and the other ITCases'. */
    private static final PrometheusCluster METRICS = new PrometheusCluster(9280, 9299);

    @RegisterExtension
    @Order(1)
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    @Order(2)
    static final MiniClusterExtension FLINK = METRICS.extension(SLOTS);

    private static Configuration conf;
    private static JobClient job;

    /** An allowed reply topic that exists. */
    private static String ownReplies;

    /**
     * Started before the first test rather than before all: the cluster extension offers its
     * environment to each test, and outside one a job would run on a second, private cluster.
     */
    @BeforeEach
    void startJobOnce() throws Exception {
        if (job != null) {
            return;
        }
        conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers());
        conf.set(TenancyOptions.TENANTS_FILE, TestTenants.file().toString());
        conf.set(KafkaOptions.TRANSACTIONAL_ID_PREFIX, freshTopic("tx"));
        conf.set(KafkaOptions.GROUP_ID, freshTopic("group"));
        conf.set(ExecutorOptions.CHECKPOINT_INTERVAL, Duration.ofMillis(500));
        // far below the largest request the broker takes, so a large dead letter must be cut
        conf.set(KafkaOptions.MAX_RECORD_SIZE, MemorySize.parse("8mb"));
        KAFKA.createFreshJobTopics(conf, SLOTS);
        conf.set(ExecutorOptions.PRECOMPILE_FILE, ExecutorOptions.NO_PRECOMPILE);
        // a topic in tenant hostile's namespace, besides its own (which requests naming none use)
        ownReplies = freshTopic(replyTopic(conf, "hostile") + ".own");
        KAFKA.broker().createTopics(Map.of(ownReplies, 1));
        // a tenant in the registry whose reply topic tenants sync has not made yet
        try (org.apache.kafka.clients.admin.Admin admin =
                org.apache.kafka.clients.admin.Admin.create(
                        Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
            admin.deleteTopics(List.of(replyTopic(conf, "demo"))).all().get();
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(SLOTS);
        Configuration noRestarts = new Configuration();
        noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
        env.configure(noRestarts);
        StreamingJob.define(env, conf);
        job = env.executeAsync(StreamingJob.JOB_NAME);
    }

    @AfterAll
    static void cancelJob() throws Exception {
        job.cancel().get();
    }

    /** With restarts off, a record that failed a task would have failed the job. */
    @AfterEach
    void theJobIsStillRunningAndAnswersAnInnocentRequest() throws Exception {
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
        Map<String, Outcome> outcome =
                sendAndAwait(
                        List.of(
                                avro(
                                        request(
                                                "innocent-" + UUID.randomUUID(),
                                                "<task:embed><note>Still answering.</note>"))),
                        INNOCENT_TIMEOUT);
        assertThat(outcome.values())
                .singleElement()
                .satisfies(
                        o -> {
                            assertThat(o.where).isEqualTo(replyTopic(conf, "hostile"));
                            assertThat(o.response().getStatus()).isEqualTo(ResponseStatus.OK);
                        });
        assertThat(job.getJobStatus().get()).isEqualTo(JobStatus.RUNNING);
    }

    @Test
    void recordsThatOnceLoopedTheJobEndAsOneDeadLetterOrReplyEach() throws Exception {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        records.add(
                json(
                        "{\"requestId\":\"far-submitted\",\"tenantId\":\"t\",\"prompt\":\"<task:embed>"
                            + " x\",\"submittedAt\":\"+1000000000-01-01T00:00:00Z\"}"));
        records.add(
                json(
                        "{\"requestId\":\"far-deadline\",\"tenantId\":\"t\",\"prompt\":\"<task:embed>"
                            + " x\",\"deadline\":\"+1000000000-01-01T00:00:00Z\"}"));
        for (String topic : List.of("../x", "t".repeat(300))) {
            records.add(
                    avro(
                            request("illegal-topic", "<task:embed> x"),
                            ZeroLayerHeaders.REPLY_TOPIC,
                            topic));
        }
        String huge = "The pump failed twice. ".repeat((40 << 20) / 23);
        records.add(json("{\"requestId\":\"40mb-bad\",\"prompt\":\"" + huge));
        records.add(
                json(
                        "{\"requestId\":\"40mb\",\"tenantId\":\"t\",\"prompt\":\"<task:summarize>"
                                + huge
                                + "\"}"));
        Map<String, Outcome> outcomes = sendAndAwait(records, OUTCOME_TIMEOUT);

        List<Outcome> list = new ArrayList<>(outcomes.values());
        String dlt = conf.get(KafkaOptions.DEAD_LETTERS_TOPIC);
        for (int i = 0; i < 4; i++) {
            assertThat(list.get(i).where).as(list.get(i).toString()).isEqualTo(dlt);
            assertThat(list.get(i).header(ZeroLayerHeaders.DLT_EXCEPTION_FQCN))
                    .endsWith("InvalidRequestException");
        }
        assertThat(list.get(0).header(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                .startsWith("submittedAt +1000000000-01-01T00:00:00Z is outside");
        assertThat(list.get(1).header(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                .startsWith("deadline +1000000000");
        assertThat(list.get(2).header(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                .contains("'../x' is not a legal Kafka topic name");
        assertThat(list.get(3).header(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                .contains("(300 chars)' is not a legal Kafka topic name");

        // the broken 40 MB JSON is dead-lettered, cut to the 8 MB the job may write, and says so
        Outcome bad = list.get(4);
        assertThat(bad.where).isEqualTo(dlt);
        assertThat(bad.header(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE)).startsWith("Not valid JSON");
        assertThat(bad.header(ZeroLayerHeaders.DLT_TRUNCATED))
                .matches("value: kept \\d+ of " + records.get(4).value().length + " bytes");
        assertThat(bad.record.value().length).isBetween(7 << 20, 8 << 20);

        // a well-formed 40 MB prompt is over the contracts' 32 MiB: a type error, answered
        Outcome tooBig = list.get(5);
        assertThat(tooBig.where).isEqualTo(replyTopic(conf, "t"));
        AnalysisResponse rejected = JsonCodec.readResponse(tooBig.record.value());
        assertThat(rejected.getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(rejected.getDiagnostics()).extracting(d -> d.getCode()).containsExactly("ZL030");
    }

    @Test
    void theReplyTopicCannotWriteIntoTheJobsOwnTopicsOrOnesNotAllowedOrMissing() throws Exception {
        List<String> forbidden =
                List.of(
                        conf.get(KafkaOptions.COSTS_TOPIC),
                        conf.get(KafkaOptions.COST_SUMMARY_TOPIC),
                        conf.get(KafkaOptions.GRAPHS_TOPIC),
                        conf.get(KafkaOptions.CONTROL_TOPIC),
                        conf.get(KafkaOptions.REQUESTS_TOPIC),
                        conf.get(KafkaOptions.DEAD_LETTERS_TOPIC),
                        "elsewhere",
                        replyTopic(conf, "hostile") + ".never-created",
                        // another tenant's namespace: signed by hostile, it is not hostile's
                        replyTopic(conf, "it"),
                        replyTopic(conf, "it") + ".inbox",
                        // shared: with verified requests no tenant reads it
                        conf.get(KafkaOptions.RESPONSES_TOPIC));
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (String topic : forbidden) {
            records.add(
                    avro(
                            request("to-" + topic, "<task:embed> x"),
                            ZeroLayerHeaders.REPLY_TOPIC,
                            topic));
        }
        records.add(
                avro(
                        request("to-own", "<task:embed> x"),
                        ZeroLayerHeaders.REPLY_TOPIC,
                        ownReplies));
        AnalysisRequest unsynced = request("to-unsynced", "<task:embed> x");
        unsynced.setTenantId("demo");
        records.add(avro(unsynced));
        Map<String, Outcome> outcomes = sendAndAwait(records, OUTCOME_TIMEOUT);

        List<Outcome> list = new ArrayList<>(outcomes.values());
        for (int i = 0; i < forbidden.size(); i++) {
            Outcome o = list.get(i);
            assertThat(o.where)
                    .as(forbidden.get(i))
                    .isEqualTo(conf.get(KafkaOptions.DEAD_LETTERS_TOPIC));
            assertThat(o.header(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                    .contains("'" + forbidden.get(i) + "'")
                    .containsAnyOf(
                            "one of the job's own topics",
                            "not on the reply-topic allow-list",
                            "does not exist",
                            "outside tenant 'hostile''s namespace",
                            "is shared and answers only unverified requests");
        }
        assertThat(list.get(forbidden.size()).where).isEqualTo(ownReplies);
        assertThat(list.get(forbidden.size()).response().getStatus()).isEqualTo(ResponseStatus.OK);
        Outcome noTopic = list.get(forbidden.size() + 1);
        assertThat(noTopic.where).isEqualTo(conf.get(KafkaOptions.DEAD_LETTERS_TOPIC));
        assertThat(noTopic.header(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                .contains(
                        "tenant 'demo''s reply topic "
                                + replyTopic(conf, "demo")
                                + " does not exist; `zerolayer tenants sync` creates it");
        // nothing forged: no record in the job's other topics carries a correlation id (what the
        // job wrote for these records is committed: sendAndAwait saw a checkpoint after them)
        for (var option :
                List.of(
                        KafkaOptions.COSTS_TOPIC,
                        KafkaOptions.COST_SUMMARY_TOPIC,
                        KafkaOptions.GRAPHS_TOPIC,
                        KafkaOptions.CONTROL_TOPIC)) {
            for (ConsumerRecord<byte[], byte[]> r : KAFKA.readToEnd(conf.get(option))) {
                assertThat(r.headers().lastHeader(ZeroLayerHeaders.CORRELATION_ID))
                        .as("record in %s", conf.get(option))
                        .isNull();
            }
        }
        assertThat(KAFKA.broker().topicNames())
                .doesNotContain(replyTopic(conf, "hostile") + ".never-created");
    }

    @Test
    void controlCommandsThatFailAreIgnoredAndTheJobKeepsAnswering() throws Exception {
        String control = conf.get(KafkaOptions.CONTROL_TOPIC);
        List<ProducerRecord<byte[], byte[]>> commands = new ArrayList<>();
        for (String value :
                List.of(
                        "{\"command\":\"reload-contracts\",\"contracts\":\"1: x\\nversion: 9\\n\"}",
                        "{\"command\":\"reload-contracts\",\"contracts\":\"? [a, b]\\n: c\\n\"}",
                        "{\"command\":\"reload-contracts\",\"contracts\":\"tags: [\"}",
                        "{\"command\":\"reboot\"}",
                        "not json at all",
                        "{\"command\":\"" + "x".repeat(1 << 20) + "\"}")) {
            commands.add(new ProducerRecord<>(control, value.getBytes(StandardCharsets.UTF_8)));
        }
        commands.add(new ProducerRecord<>(control, (byte[]) null));
        KAFKA.sendAll(commands);
        // each classifier and executor subtask ignored every one: three contracts that do not
        // parse, four records that are no command
        org.awaitility.Awaitility.await()
                .atMost(OUTCOME_TIMEOUT)
                .until(
                        () ->
                                ignored("reload_contracts") >= 3 * 2 * SLOTS
                                        && ignored("other") >= 4 * 2 * SLOTS);
        assertThat(
                        METRICS.sum(
                                CONTROL_COMMANDS,
                                "command=\"reload_contracts\"",
                                "outcome=\"applied\""))
                .isZero();
        // the innocent request after this test shows every slot still answers with the contracts
        // it had; a summarize request checks the contracts in force were not replaced
        Map<String, Outcome> after =
                sendAndAwait(
                        List.of(
                                avro(
                                        request(
                                                "after-control",
                                                "<task:summarize> One. Two. Three."))),
                        OUTCOME_TIMEOUT);
        assertThat(after.values())
                .singleElement()
                .satisfies(o -> assertThat(o.response().getStatus()).isEqualTo(ResponseStatus.OK));
    }

    private static final String CONTROL_COMMANDS =
            "flink_taskmanager_job_task_operator_command_outcome_control_commands_total";

    /** Control commands of this name the job's subtasks ignored, all together. */
    private static double ignored(String command) {
        return METRICS.sum(CONTROL_COMMANDS, "command=\"" + command + "\"", "outcome=\"ignored\"");
    }

    @Test
    void aCorpusOfBadRecordsThatAlreadyWorkedStillDoes() throws Exception {
        byte[] good = REQUESTS.encode(request("good", "<task:embed> XYZ"));
        byte[] invalidUtf8 = good.clone();
        invalidUtf8[new String(good, StandardCharsets.ISO_8859_1).indexOf("XYZ")] = (byte) 0xC3;
        byte[] otherSchema = HostileRecords.ofAnotherSchema();
        AnalysisRequest bigAttributes = request("big-attributes", "<task:embed> x");
        bigAttributes.setAttributes(Map.of("blob", "a".repeat(1 << 20)));
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        records.add(raw(new byte[0]));
        records.add(raw(new byte[] {0x7f, 0x45, 0x4c, 0x46}));
        records.add(raw(invalidUtf8));
        records.add(raw(otherSchema));
        records.add(raw(java.util.Arrays.copyOf(good, good.length - 5)));
        records.add(avro(bigAttributes));
        records.add(
                avro(
                        request(
                                "deep",
                                "<task:summarize>"
                                        + "<note>".repeat(10_000)
                                        + "The pump failed."
                                        + "</note>".repeat(10_000))));
        records.add(avro(request("many-tags", "<task:summarize>" + "<br/>".repeat(20_000) + "x")));
        records.add(
                avro(
                        request(
                                "long-attribute",
                                "<task:summarize><document format=\""
                                        + "p".repeat(1 << 20)
                                        + "\">x</document>")));
        records.add(avro(request("no-text", "<task:summarize>")));
        records.add(
                avro(
                        request("json-as-avro", "<task:embed> x"),
                        ZeroLayerHeaders.CONTENT_TYPE,
                        "application/json"));
        records.add(json("{\"requestId\":\"deep-json\",\"prompt\":" + "[".repeat(5000) + "}"));
        records.add(json("{\"requestId\":1,\"tenantId\":[],\"prompt\":{}}"));
        Map<String, Outcome> outcomes = sendAndAwait(records, OUTCOME_TIMEOUT);
        assertThat(outcomes).hasSize(records.size());
        assertThat(outcomes.values())
                .filteredOn(o -> o.where.equals(replyTopic(conf, "hostile")))
                .extracting(o -> o.response().getRequestId())
                .containsExactlyInAnyOrder("deep", "many-tags", "long-attribute", "no-text");
        AnalysisResponse noText =
                outcomes.values().stream()
                        .filter(o -> o.where.equals(replyTopic(conf, "hostile")))
                        .map(Outcome::response)
                        .filter(r -> r.getRequestId().equals("no-text"))
                        .findFirst()
                        .orElseThrow();
        // a client's mistake, found by the type check, not a failure of the graph
        assertThat(noText.getStatus()).isEqualTo(ResponseStatus.REJECTED);
        assertThat(noText.getDiagnostics()).extracting(d -> d.getCode()).containsExactly("ZL012");
    }

    @Test
    void generatedMalformedRequestsAndHeadersEachEndAsExactlyOneReplyOrDeadLetter()
            throws Exception {
        List<String> topics =
                List.of(
                        ownReplies,
                        replyTopic(conf, "hostile"),
                        conf.get(KafkaOptions.RESPONSES_TOPIC),
                        conf.get(KafkaOptions.COSTS_TOPIC),
                        conf.get(KafkaOptions.CONTROL_TOPIC),
                        conf.get(KafkaOptions.GRAPHS_TOPIC));
        long seed = Long.getLong("zerolayer.hostile.seed", System.nanoTime());
        // printed before anything can fail: a hang or a crash replays from this line too
        System.out.printf(
                "Hostile records drawn from seed %d; replay with -Dzerolayer.hostile.seed=%d%n",
                seed, seed);
        List<HostileRecords.Hostile> drawn = new HostileRecords(topics).draw(150, seed);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (HostileRecords.Hostile h : drawn) {
            ProducerRecord<byte[], byte[]> r =
                    new ProducerRecord<>(conf.get(KafkaOptions.REQUESTS_TOPIC), h.key(), h.value());
            h.headers().forEach(x -> r.headers().add(x.name(), x.value()));
            records.add(r);
        }
        Map<String, Outcome> outcomes = sendAndAwait(records, OUTCOME_TIMEOUT);
        assertThat(outcomes)
                .as("seed %d (rerun with -Dzerolayer.hostile.seed=%d)", seed, seed)
                .hasSize(drawn.size());
        // and nothing reached the job's own topics as a reply: a reply went to the topic in
        // hostile's namespace, or to its tenant's own when the record named none
        List<String> places =
                new ArrayList<>(List.of(EmbeddedKafkaExtension.replies(conf).split(",")));
        places.add(ownReplies);
        places.add(conf.get(KafkaOptions.DEAD_LETTERS_TOPIC));
        for (Outcome o : outcomes.values()) {
            assertThat(o.where).as("seed %d", seed).isIn(places);
        }
    }

    @Test
    void theExecutorCountsOneCacheLookupPerRequestItRuns() throws Exception {
        long before =
                metricSum("execution_graph_cache_hit_total")
                        + metricSum("execution_graph_cache_miss_total");
        List<ProducerRecord<byte[], byte[]>> burst = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            burst.add(avro(request("burst-" + i, "<task:embed> Ticket number " + i + " is open.")));
        }
        Map<String, Outcome> outcomes = sendAndAwait(burst, OUTCOME_TIMEOUT);
        assertThat(outcomes.values())
                .allSatisfy(o -> assertThat(o.response().getStatus()).isEqualTo(ResponseStatus.OK));
        // the executor counts a lookup before the request's reply leaves it, and every reply is
        // committed by now: the counters are final
        long after =
                metricSum("execution_graph_cache_hit_total")
                        + metricSum("execution_graph_cache_miss_total");
        assertThat(after - before)
                .as("executor lookups counted for %d requests", burst.size())
                .isEqualTo(burst.size());
    }

    // ---- sending, and where each record ended ----

    /** Where a record ended: the topic and the record there. */
    record Outcome(String where, ConsumerRecord<byte[], byte[]> record) {
        String header(String name) {
            Header h = record.headers().lastHeader(name);
            return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        }

        AnalysisResponse response() {
            return RESPONSES.decode(record.value());
        }

        @Override
        public String toString() {
            return where + " " + header(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE);
        }
    }

    /** Adds each record that carries one of these correlation ids to where it was seen. */
    private static void collectOutcomes(
            List<ConsumerRecord<byte[], byte[]>> records,
            Set<String> correlations,
            Map<String, List<Outcome>> seen) {
        for (ConsumerRecord<byte[], byte[]> r : records) {
            Header h = r.headers().lastHeader(ZeroLayerHeaders.CORRELATION_ID);
            String correlation = h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
            if (correlations.contains(correlation)) {
                seen.computeIfAbsent(correlation, c -> new ArrayList<>())
                        .add(new Outcome(r.topic(), r));
            }
        }
    }

    /**
     * Sends the records, each with a correlation id of its own as its last header, and returns
     * where each ended, in the order sent. Fails unless each ended exactly once, as a reply or a
     * dead letter, within the timeout, and still once after the job's next checkpoint.
     */
    private Map<String, Outcome> sendAndAwait(
            List<ProducerRecord<byte[], byte[]>> records, Duration timeout) throws Exception {
        Map<String, ProducerRecord<byte[], byte[]>> byCorrelation = new LinkedHashMap<>();
        for (ProducerRecord<byte[], byte[]> r : records) {
            String correlation = "hostile-" + UUID.randomUUID();
            r.headers()
                    .add(
                            ZeroLayerHeaders.CORRELATION_ID,
                            correlation.getBytes(StandardCharsets.UTF_8));
            byCorrelation.put(correlation, r);
        }
        List<String> places =
                List.of(
                        EmbeddedKafkaExtension.replies(conf),
                        ownReplies,
                        conf.get(KafkaOptions.DEAD_LETTERS_TOPIC));
        Map<String, List<Outcome>> seen = new HashMap<>();
        // read from where the topics end before sending: what earlier tests wrote (tens of MB of
        // dead letters) is not read again on every look
        try (EmbeddedKafkaExtension.Tail tail = KAFKA.tail(places)) {
            KAFKA.sendAll(records);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (seen.size() < byCorrelation.size() && System.nanoTime() < deadline) {
                collectOutcomes(tail.poll(Duration.ofMillis(200)), byCorrelation.keySet(), seen);
            }
            if (seen.size() == byCorrelation.size()) {
                // a duplicate of any of them would be committed by a checkpoint started after this
                METRICS.awaitCheckpointAfterNow(job.getJobID());
                collectOutcomes(tail.toEnd(), byCorrelation.keySet(), seen);
            }
        }
        Map<String, Outcome> out = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (String correlation : byCorrelation.keySet()) {
            List<Outcome> found = seen.getOrDefault(correlation, List.of());
            assertThat(found).as("outcomes of %s", correlation).hasSizeLessThanOrEqualTo(1);
            if (found.isEmpty()) {
                missing.add(correlation);
            } else {
                out.put(correlation, found.get(0));
            }
        }
        assertThat(missing).as("records with neither a reply nor a dead letter").isEmpty();
        return out;
    }

    private static AnalysisRequest request(String id, String prompt) {
        return AnalysisRequest.newBuilder()
                .setRequestId(id)
                .setTenantId("hostile")
                .setPrompt(prompt)
                .setSubmittedAt(Instant.now())
                .setAttributes(Map.of())
                .build();
    }

    private static ProducerRecord<byte[], byte[]> avro(AnalysisRequest request, String... headers) {
        ProducerRecord<byte[], byte[]> r = raw(REQUESTS.encode(request));
        for (int i = 0; i < headers.length; i += 2) {
            r.headers().add(headers[i], headers[i + 1].getBytes(StandardCharsets.UTF_8));
        }
        return r;
    }

    private static ProducerRecord<byte[], byte[]> json(String body) {
        ProducerRecord<byte[], byte[]> r = raw(body.getBytes(StandardCharsets.UTF_8));
        r.headers()
                .add(
                        ZeroLayerHeaders.CONTENT_TYPE,
                        ZeroLayerHeaders.JSON.getBytes(StandardCharsets.UTF_8));
        return r;
    }

    private static ProducerRecord<byte[], byte[]> raw(byte[] value) {
        return new ProducerRecord<>(conf.get(KafkaOptions.REQUESTS_TOPIC), value);
    }

    /** A counter of the executor summed over its subtasks, for this class's job. */
    private static long metricSum(String metric) {
        String jobId = job.getJobID().toString();
        double sum = 0;
        for (String line : METRICS.scrape().split("\n")) {
            if (line.startsWith("flink_taskmanager_job_task_operator_" + metric + "{")
                    && line.contains("job_id=\"" + jobId + "\"")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return Math.round(sum);
    }
}

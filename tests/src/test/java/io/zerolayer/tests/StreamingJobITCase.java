package io.zerolayer.tests;

import static io.zerolayer.tests.testutils.EmbeddedKafkaExtension.freshTopic;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.ReplyDelivery;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostSummary;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.EmbeddedKafkaExtension;
import io.zerolayer.tests.testutils.HostileRecords;
import io.zerolayer.tests.testutils.PrometheusCluster;
import io.zerolayer.tests.testutils.SharedWithNestedClasses;
import io.zerolayer.tests.testutils.StreamingJobExtension;
import io.zerolayer.tests.testutils.TestTenants;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The streaming job on a Flink MiniCluster against a real KRaft broker. */
class StreamingJobITCase {
    private static final int SLOTS = 2;
    private static final Duration REPLY_TIMEOUT = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SingleObjectCodec<AnalysisRequest> REQUESTS =
            SingleObjectCodec.of(AnalysisRequest.class);
    private static final SingleObjectCodec<AnalysisResponse> RESPONSES =
            SingleObjectCodec.of(AnalysisResponse.class);
    private static final SingleObjectCodec<KernelCostRecord> COSTS =
            SingleObjectCodec.of(KernelCostRecord.class);
    private static final SingleObjectCodec<ExecutionGraph> GRAPHS =
            SingleObjectCodec.of(ExecutionGraph.class);
    private static final SingleObjectCodec<CostSummary> SUMMARIES =
            SingleObjectCodec.of(CostSummary.class);

    /** The billing workload's failure-free bill, once computed. */
    private static final java.util.concurrent.atomic.AtomicReference<List<KernelCostRecord>>
            CLEAN_BILL = new java.util.concurrent.atomic.AtomicReference<>();

    /** Ports the test cluster's Prometheus reporter may take (clear of serve's 9249–9259). */
    private static final PrometheusCluster METRICS = new PrometheusCluster(9260, 9279);

    @RegisterExtension
    @Order(1)
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    @Order(2)
    static final SharedWithNestedClasses FLINK =
            new SharedWithNestedClasses(METRICS.extension(SLOTS));

    /** The job of each test, on topics of its own; a test starts it once its settings are made. */
    @RegisterExtension
    @Order(3)
    static final StreamingJobExtension JOB = new StreamingJobExtension(KAFKA, SLOTS, METRICS);

    /** Every metric line the cluster's Prometheus reporter serves now. */
    private static String scrapeMetrics() {
        return METRICS.scrape();
    }

    /** This test's job settings ({@link StreamingJobExtension#conf()}). */
    private Configuration conf;

    @BeforeEach
    void settings() {
        conf = JOB.conf();
    }

    private static AnalysisRequest request(String id, String prompt) {
        return AnalysisRequest.newBuilder()
                .setRequestId(id)
                .setTenantId("it")
                .setPrompt(prompt)
                .setSubmittedAt(Instant.now())
                .setAttributes(Map.of("case", id))
                .build();
    }

    /**
     * The committed records of a topic of the job, decoded: at least {@code count}, and any more
     * the job wrote before a checkpoint that started once they came ({@link
     * StreamingJobExtension#readCommitted}).
     */
    private <T extends org.apache.avro.specific.SpecificRecordBase> List<T> committed(
            org.apache.flink.configuration.ConfigOption<String> topic,
            SingleObjectCodec<T> codec,
            int count) {
        return JOB.readCommitted(conf.get(topic), count, REPLY_TIMEOUT).stream()
                .map(r -> codec.decode(r.value()))
                .toList();
    }

    /** The one record of {@code records} carrying correlation id {@code id}. */
    private static ConsumerRecord<byte[], byte[]> withCorrelationId(
            List<ConsumerRecord<byte[], byte[]>> records, String id) {
        return records.stream()
                .filter(r -> id.equals(header(r, ZeroLayerHeaders.CORRELATION_ID)))
                .findFirst()
                .orElseThrow();
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static String contract(int variant) {
        String[] parties = {"Buyer", "Customer", "Licensee", "Client"};
        String p = parties[variant % parties.length];
        return "<contract><section:payment>The "
                + p
                + " shall pay each invoice within thirty days of receipt. Late payments bear"
                + " interest at one percent per month.</section><section:termination>Either party"
                + " may terminate this agreement on ninety days written notice to the other"
                + " party.</section><section:liability>Liability is limited to the fees paid in the"
                + " previous twelve months.</section></contract>";
    }

    /** Requests of every kind end as one reply or one dead letter, each from its own text. */
    @Nested
    class RequestsAndReplies {
        private static final int SHARED_STRUCTURE = 12;

        /** A client of tenant {@code it} with a reply topic of its own. */
        private io.zerolayer.client.ZeroLayerClient client() {
            return io.zerolayer.client.ZeroLayerClient.builder()
                    .bootstrapServers(KAFKA.bootstrapServers())
                    .requestsTopic(conf.get(KafkaOptions.REQUESTS_TOPIC))
                    .replyTopic(freshTopic(JOB.replyTopic("it") + ".client"))
                    .credentials(TestTenants.credentials("it"))
                    .build();
        }

        @Test
        void theClientCompletesWithTheFirstReplyAndDropsADuplicate() throws Exception {
            JOB.start();
            try (io.zerolayer.client.ZeroLayerClient client = client()) {
                AnalysisResponse answer =
                        client.submit(request("client-1", "<task:embed> hello"))
                                .get(
                                        REPLY_TIMEOUT.toSeconds(),
                                        java.util.concurrent.TimeUnit.SECONDS);
                assertThat(answer.getStatus()).isEqualTo(ResponseStatus.OK);
                ConsumerRecord<byte[], byte[]> reply =
                        KAFKA.read(client.replyTopic(), 1, REPLY_TIMEOUT, Duration.ZERO).get(0);
                assertThat(header(reply, ZeroLayerHeaders.REPLY_ID))
                        .startsWith(conf.get(KafkaOptions.REQUESTS_TOPIC) + "/");
                // what a restart of an at-least-once job sends: the same reply once more
                KAFKA.sendAll(
                        List.of(
                                new org.apache.kafka.clients.producer.ProducerRecord<>(
                                        client.replyTopic(),
                                        null,
                                        reply.key(),
                                        reply.value(),
                                        reply.headers())));
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (client.duplicateReplies() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(50);
                }
                assertThat(client.duplicateReplies()).isEqualTo(1);
            }
        }

        @Test
        void aTextEncodedBeforeIsAnsweredFromTheEmbeddingCacheAndBilledACacheNode()
                throws Exception {
            JOB.start();
            String prompt =
                    "<task:embed><output_format:json><note>The embedding cache keeps what it"
                            + " encoded. Nothing here was sent before "
                            + java.util.UUID.randomUUID()
                            + ".</note>";
            try (io.zerolayer.client.ZeroLayerClient client = client()) {
                AnalysisResponse first =
                        client.submit(request("cached-1", prompt))
                                .get(REPLY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                AnalysisResponse again =
                        client.submit(request("cached-2", prompt))
                                .get(REPLY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                assertThat(again.getOutput()).isEqualTo(first.getOutput());
                Map<String, List<KernelCostRecord>> byRequest =
                        committed(
                                        KafkaOptions.COSTS_TOPIC,
                                        COSTS,
                                        first.getCost().getKernels() + again.getCost().getKernels())
                                .stream()
                                .filter(c -> c.getRequestId().startsWith("cached-"))
                                .collect(
                                        java.util.stream.Collectors.groupingBy(
                                                KernelCostRecord::getRequestId));
                assertThat(byRequest.get("cached-1"))
                        .extracting(KernelCostRecord::getKernel)
                        .contains("encode")
                        .doesNotContain("cache");
                List<KernelCostRecord> cached = byRequest.get("cached-2");
                assertThat(cached).hasSize(again.getCost().getKernels());
                assertThat(cached)
                        .extracting(KernelCostRecord::getKernel)
                        .contains("cache")
                        .doesNotContain("encode", "pool");
                KernelCostRecord hit =
                        cached.stream()
                                .filter(c -> c.getKernel().equals("cache"))
                                .findFirst()
                                .orElseThrow();
                assertThat(hit.getFlops()).isZero();
                assertThat(hit.getDurationNanos()).isPositive();
                // the records still add up to what the reply says it cost
                assertThat(cached.stream().mapToLong(KernelCostRecord::getDurationNanos).sum())
                        .isEqualTo(again.getCost().getKernelNanos());
            }
        }

        @Test
        void requestsOfTwoGraphsShareOneEncoderPassBilledToTheNanoDollar() throws Exception {
            // one executor slot holds every graph; nothing is answered from a cache
            conf.set(
                    ExecutorOptions.EMBEDDING_CACHE_SIZE,
                    org.apache.flink.configuration.MemorySize.ZERO);
            JOB.start(1);
            StringBuilder report =
                    new StringBuilder(
                            "<task:summarize><output_format:json><document format=\"text\">");
            for (int i = 0; report.length() < 40_000; i++) {
                report.append("Line ")
                        .append(i)
                        .append(" of the quarterly report notes a change in freight costs. ");
            }
            String longReport = report.append("</document>").toString();
            String ticket =
                    "<ticket>Parcel %d never arrived and the invoice was charged twice.</ticket>";
            // extract searches passages as answer does: both plan the same encoder tier
            String classify =
                    "<task:extract><output_format:json><fields>parcel number, amount charged"
                            + "</fields>"
                            + ticket;
            String answer =
                    "<task:answer><output_format:json><question>What went wrong?</question>"
                            + ticket;
            Map<String, String> graphOf = new java.util.HashMap<>();
            List<KernelCostRecord> costs = new java.util.ArrayList<>();
            int sent = 0;
            Map<List<Object>, List<KernelCostRecord>> mixed = Map.of();
            // a pass mixing the two graphs forms while the long report keeps the slot busy: its
            // slices let the tickets, due first, in; a round whose tickets arrive apart is retried
            for (int round = 0; round < 4 && mixed.isEmpty(); round++) {
                String topic = conf.get(KafkaOptions.REQUESTS_TOPIC);
                AnalysisRequest busy =
                        request("report-" + round, longReport.replace("Line 0", "Round " + round));
                KAFKA.send(topic, busy.getRequestId().getBytes(), REQUESTS.encode(busy));
                // the tickets go once the report holds the slot's inference thread
                long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (!java.util.regex.Pattern.compile("batches_running\\{[^\\n]*\\} [1-9]")
                                .matcher(scrapeMetrics())
                                .find()
                        && System.nanoTime() < until) {
                    Thread.sleep(20);
                }
                List<AnalysisRequest> requests = new java.util.ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    int n = round * 10 + i;
                    requests.add(request("classify-" + n, classify.formatted(n)));
                    requests.add(request("answer-" + n, answer.formatted(n)));
                }
                KAFKA.sendAll(
                        requests.stream()
                                .map(
                                        r ->
                                                new org.apache.kafka.clients.producer
                                                                .ProducerRecord<
                                                        byte[], byte[]>(
                                                        topic,
                                                        r.getRequestId().getBytes(),
                                                        REQUESTS.encode(r)))
                                .toList());
                requests.add(busy);
                sent += requests.size();
                int kernels = 0; // of every reply so far, read from the start
                for (ConsumerRecord<byte[], byte[]> r :
                        KAFKA.read(JOB.replies(), sent, REPLY_TIMEOUT, Duration.ZERO)) {
                    AnalysisResponse response = RESPONSES.decode(r.value());
                    assertThat(response.getStatus())
                            .as(response.getRequestId())
                            .isEqualTo(ResponseStatus.OK);
                    graphOf.put(response.getRequestId(), response.getGraphId());
                    kernels += response.getCost().getKernels();
                }
                costs = committed(KafkaOptions.COSTS_TOPIC, COSTS, kernels);
                // the encode records of one pass share its start and its sequences
                mixed =
                        costs.stream()
                                .filter(c -> c.getKernel().equals("encode"))
                                .collect(
                                        java.util.stream.Collectors.groupingBy(
                                                c ->
                                                        List.<Object>of(
                                                                c.getStartedAt(),
                                                                c.getBatchSize())))
                                .entrySet()
                                .stream()
                                .filter(
                                        e ->
                                                e.getValue().stream()
                                                                .map(KernelCostRecord::getGraphId)
                                                                .distinct()
                                                                .count()
                                                        > 1)
                                .collect(
                                        java.util.stream.Collectors.toMap(
                                                Map.Entry::getKey, Map.Entry::getValue));
            }
            assertThat(graphOf.get("classify-0")).isNotEqualTo(graphOf.get("answer-0"));
            assertThat(mixed).as("an encoder pass holding requests of two graphs").isNotEmpty();
            io.zerolayer.operators.costs.PriceSheet prices =
                    io.zerolayer.operators.costs.PriceSheet.builtIn();
            for (List<KernelCostRecord> pass : mixed.values()) {
                // every request of the pass is here: their sequences make up the pass's
                assertThat(pass.stream().mapToInt(KernelCostRecord::getRequestItems).sum())
                        .isEqualTo(pass.get(0).getBatchSize());
                assertThat(pass)
                        .allSatisfy(
                                c ->
                                        assertThat(c.getGraphId())
                                                .isEqualTo(graphOf.get(c.getRequestId())));
                // billed once for the whole pass, split to the nano-dollar among its requests
                KernelCostRecord first = pass.get(0);
                String profile = first.getHardwareProfile();
                io.zerolayer.operators.costs.PriceSheet.Money bill =
                        prices.bill(
                                profile.contains("@")
                                        ? profile.substring(0, profile.indexOf('@'))
                                        : profile,
                                first.getModel().endsWith("int8") ? "int8" : "fp32",
                                pass.stream().mapToLong(KernelCostRecord::getFlops).sum(),
                                pass.stream().mapToLong(KernelCostRecord::getMemoryBytes).sum(),
                                null,
                                pass.stream().mapToLong(KernelCostRecord::getDurationNanos).sum());
                assertThat(pass.stream().mapToLong(KernelCostRecord::getComputeNanoUsd).sum())
                        .isEqualTo(bill.compute())
                        .isPositive();
                assertThat(pass.stream().mapToLong(KernelCostRecord::getMemoryNanoUsd).sum())
                        .isEqualTo(bill.memory());
            }
            assertThat(scrapeMetrics())
                    .containsPattern("encoder_passes_across_graphs_total[^\\n]* [1-9]");
        }

        @Test
        void aLongDocumentSplitOverEverySlotIsAnsweredAsWhenItRunsWhole() throws Exception {
            conf.set(
                    ExecutorOptions.EMBEDDING_CACHE_SIZE,
                    org.apache.flink.configuration.MemorySize.ZERO);
            String[] topics = {"freight rates", "harvest weather", "software release"};
            StringBuilder text = new StringBuilder();
            // 256 KiB: about twice the default split threshold's tokens, so it is split over both
            // slots, as a document of any length above it is
            for (int i = 0; text.length() < (1 << 18); i++) {
                text.append("Entry ")
                        .append(i)
                        .append(i % 5 == 0 ? ": the harvest was late after rain. " : ": ")
                        .append("The ")
                        .append(topics[i % 3 == 0 ? 0 : 2])
                        .append(" changed this week, says note ")
                        .append(i)
                        .append(". ");
            }
            // classify without its 100 000-character limit, as a user's own task would be
            java.nio.file.Path tasks =
                    java.nio.file.Files.createTempFile("zerolayer-tasks", ".yaml");
            tasks.toFile().deleteOnExit();
            java.nio.file.Files.writeString(
                    tasks,
                    io.zerolayer.operators.contracts.TaskContracts.builtIn()
                                    .source()
                                    .stripTrailing()
                            + "\n  classify-large:\n    decoder: classify\n    requires: [labels]\n"
                            + "    output-formats: [json, text]\n    max-chars: 2000000\n");
            conf.set(TenancyOptions.CONTRACTS_FILE, tasks.toString());
            String prompt =
                    "<task:classify-large><output_format:json><labels>freight, weather,"
                            + " software</labels><document format=\"text\">"
                            + text
                            + "</document>";
            JOB.start();
            String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
            KAFKA.send(requests, "split-1".getBytes(), REQUESTS.encode(request("split-1", prompt)));
            AnalysisResponse split =
                    RESPONSES.decode(
                            KAFKA.read(JOB.replies(), 1, REPLY_TIMEOUT, Duration.ZERO)
                                    .get(0)
                                    .value());
            assertThat(split.getStatus()).isEqualTo(ResponseStatus.OK);
            // each slot ran a part: their cost records make up the reply's cost
            List<KernelCostRecord> records =
                    committed(KafkaOptions.COSTS_TOPIC, COSTS, split.getCost().getKernels())
                            .stream()
                            .filter(c -> c.getRequestId().equals("split-1"))
                            .toList();
            assertThat(records).hasSize(split.getCost().getKernels());
            assertThat(records)
                    .extracting(KernelCostRecord::getNodeId)
                    .contains("encode#part1/2", "encode#part2/2")
                    .doesNotHaveDuplicates();
            assertThat(records.stream().mapToLong(KernelCostRecord::getDurationNanos).sum())
                    .isEqualTo(split.getCost().getKernelNanos());
            assertThat(scrapeMetrics()).containsPattern("requests_split_total[^\\n]* 1");
            JOB.cancel();

            // the same document run whole, by a job that splits nothing
            conf.set(ExecutorOptions.SPLIT_MIN_TOKENS, 0L);
            conf.set(KafkaOptions.REQUESTS_TOPIC, freshTopic("requests-whole"));
            conf.set(KafkaOptions.GROUP_ID, freshTopic("group-whole"));
            conf.set(KafkaOptions.TRANSACTIONAL_ID_PREFIX, freshTopic("tx-whole"));
            KAFKA.broker().createTopics(Map.of(conf.get(KafkaOptions.REQUESTS_TOPIC), 2));
            JOB.start();
            KAFKA.send(
                    conf.get(KafkaOptions.REQUESTS_TOPIC),
                    "whole-1".getBytes(),
                    REQUESTS.encode(request("whole-1", prompt)));
            AnalysisResponse whole =
                    KAFKA.read(JOB.replies(), 2, REPLY_TIMEOUT, Duration.ZERO).stream()
                            .map(r -> RESPONSES.decode(r.value()))
                            .filter(r -> r.getRequestId().equals("whole-1"))
                            .findFirst()
                            .orElseThrow();
            assertThat(whole.getStatus()).isEqualTo(ResponseStatus.OK);
            assertThat(whole.getGraphId()).isEqualTo(split.getGraphId());
            JsonNode a = JSON.readTree(split.getOutput());
            JsonNode b = JSON.readTree(whole.getOutput());
            assertThat(a.get("label").asText()).isEqualTo(b.get("label").asText());
            Map<String, Double> splitScores = new java.util.LinkedHashMap<>();
            a.get("scores")
                    .forEach(
                            s ->
                                    splitScores.put(
                                            s.get("label").asText(),
                                            s.get("similarity").asDouble()));
            // the same ranking and similarities: the parts are cut where the chunker ends a
            // sentence, so they encode the whole's sentences, and a sentence's int8 codes are its
            // own whatever runs beside it
            assertThat(splitScores.keySet())
                    .containsExactlyElementsOf(
                            java.util.stream.StreamSupport.stream(
                                            b.get("scores").spliterator(), false)
                                    .map(s -> s.get("label").asText())
                                    .toList());
            b.get("scores")
                    .forEach(
                            s ->
                                    assertThat(splitScores.get(s.get("label").asText()))
                                            .isCloseTo(
                                                    s.get("similarity").asDouble(),
                                                    org.assertj.core.data.Offset.offset(1e-4)));
            // each label's best-supported sentence: the best of the parts', the whole's
            assertThat(a.get("evidence")).hasSameSizeAs(b.get("evidence"));
            for (int i = 0; i < b.get("evidence").size(); i++) {
                JsonNode mine = a.get("evidence").get(i);
                JsonNode theirs = b.get("evidence").get(i);
                assertThat(mine.get("label")).isEqualTo(theirs.get("label"));
                assertThat(mine.get("similarity").asDouble())
                        .isCloseTo(
                                theirs.get("similarity").asDouble(),
                                org.assertj.core.data.Offset.offset(1e-4));
            }
            assertThat(a.get("tokens").asLong()).isEqualTo(b.get("tokens").asLong());
        }

        @Test
        void everyRequestGetsExactlyOneReplyWithItsCorrelationIdAndAResultFromItsText()
                throws Exception {
            JOB.start();
            String replyTopic = freshTopic(JOB.replyTopic("it") + ".client");
            KAFKA.broker().createTopics(Map.of(replyTopic, 1));
            Map<String, String> prompts = mixedStream();
            sendHalfWithTheirOwnReplyTopic(prompts, replyTopic);
            Map<String, AnalysisResponse> responses =
                    exactlyOneReplyPerCorrelationId(prompts, replyTopic);
            resultsComeFromEachRequestsOwnText(prompts, responses);
            String shared = aSharedStructureCompilesOnceAndIsPublished(responses);
            inspectPrintsTheGraphWithItsChoices(shared);
            eachExecutedNodeIsBilledOnce(responses);
        }

        /**
         * Twelve answers of two contract structures of one shape (every other contract names two of
         * its sections differently), a paper summary and a ticket classification.
         */
        private Map<String, String> mixedStream() {
            Map<String, String> prompts = new HashMap<>();
            for (int i = 0; i < SHARED_STRUCTURE; i++) {
                prompts.put(
                        "answer-" + i,
                        "<task:answer><output_format:json><question>How much notice is needed to"
                                + " end the "
                                + (i % 2 == 0 ? "agreement" : "contract")
                                + "?</question>"
                                + (i % 2 == 0
                                        ? contract(i)
                                        : contract(i)
                                                .replace("section:payment", "section:fees")
                                                .replace("section:liability", "section:caps")));
            }
            String paper =
                    "<task:summarize"
                        + " sentences=\"2\"><output_format:json><paper><section:abstract>Graphene"
                        + " conducts heat extremely well. We measured its conductivity with Raman"
                        + " spectroscopy.</section><section:results>The conductivity exceeded 3000"
                        + " W/mK at room temperature. Wrinkles lowered it by a"
                        + " fifth.</section></paper>";
            prompts.put("summary", paper);
            prompts.put(
                    "classify",
                    "<task:classify><output_format:json><labels>refund request, password"
                        + " reset</labels><ticket>I still have not received my money back for the"
                        + " returned shoes.</ticket>");
            return prompts;
        }

        /**
         * Sends each prompt, about half naming their own reply topic, each with its correlation id.
         */
        private void sendHalfWithTheirOwnReplyTopic(
                Map<String, String> prompts, String replyTopic) {
            String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
            for (Map.Entry<String, String> e : prompts.entrySet()) {
                boolean ownReplyTopic = e.getKey().hashCode() % 2 == 0;
                List<Object> headers =
                        new ArrayList<>(
                                List.of(
                                        ZeroLayerHeaders.CORRELATION_ID,
                                        ("corr-" + e.getKey()).getBytes()));
                if (ownReplyTopic) {
                    headers.addAll(List.of(ZeroLayerHeaders.REPLY_TOPIC, replyTopic));
                }
                KAFKA.send(
                        requests,
                        e.getKey().getBytes(),
                        REQUESTS.encode(request(e.getKey(), e.getValue())),
                        headers.toArray());
            }
        }

        /**
         * Exactly one reply per request, on the topic it asked for, with its correlation id byte
         * for byte.
         */
        private Map<String, AnalysisResponse> exactlyOneReplyPerCorrelationId(
                Map<String, String> prompts, String replyTopic) {
            long toOwnTopic = prompts.keySet().stream().filter(k -> k.hashCode() % 2 == 0).count();

            List<ConsumerRecord<byte[], byte[]>> replies = new ArrayList<>();
            replies.addAll(KAFKA.read(replyTopic, (int) toOwnTopic, REPLY_TIMEOUT, Duration.ZERO));
            replies.addAll(
                    JOB.readCommitted(
                            JOB.replies(), prompts.size() - (int) toOwnTopic, REPLY_TIMEOUT));

            Map<String, List<ConsumerRecord<byte[], byte[]>>> byCorrelation =
                    replies.stream()
                            .collect(
                                    Collectors.groupingBy(
                                            r -> header(r, ZeroLayerHeaders.CORRELATION_ID)));
            assertThat(byCorrelation).hasSize(prompts.size());
            byCorrelation.values().forEach(list -> assertThat(list).hasSize(1));

            Map<String, AnalysisResponse> responses = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : replies) {
                AnalysisResponse response = RESPONSES.decode(r.value());
                assertThat(header(r, ZeroLayerHeaders.CORRELATION_ID))
                        .isEqualTo("corr-" + response.getRequestId());
                assertThat(response.getStatus())
                        .as(response.toString())
                        .isEqualTo(ResponseStatus.OK);
                assertThat(header(r, ZeroLayerHeaders.GRAPH_ID))
                        .isEqualTo(response.getGraphId())
                        .hasSize(64);
                responses.put(response.getRequestId(), response);
            }
            return responses;
        }

        /** Each result is computed from its request's own text. */
        private void resultsComeFromEachRequestsOwnText(
                Map<String, String> prompts, Map<String, AnalysisResponse> responses)
                throws Exception {
            for (int i = 0; i < SHARED_STRUCTURE; i++) {
                JsonNode answer = JSON.readTree(responses.get("answer-" + i).getOutput());
                assertThat(answer.get("passage").asText()).contains("ninety days written notice");
                String prompt = prompts.get("answer-" + i);
                assertThat(prompt.substring(answer.get("start").asInt(), answer.get("end").asInt()))
                        .contains("ninety days");
            }
            for (JsonNode sentence :
                    JSON.readTree(responses.get("summary").getOutput()).get("sentences")) {
                assertThat(prompts.get("summary")).contains(sentence.get("text").asText());
            }
            assertThat(JSON.readTree(responses.get("classify").getOutput()).get("label").asText())
                    .isEqualTo("refund request");
        }

        /**
         * Requests of two differently named structures of one shape share one graph, compiled once
         * and published, republished when the second structure runs on it, then republished
         * measured.
         */
        private String aSharedStructureCompilesOnceAndIsPublished(
                Map<String, AnalysisResponse> responses) {
            // they share one graph id, compiled once (keyBy sends them to one slot)
            String shared = responses.get("answer-0").getGraphId();
            List<AnalysisResponse> sharing =
                    responses.values().stream().filter(r -> r.getGraphId().equals(shared)).toList();
            assertThat(sharing).hasSize(SHARED_STRUCTURE);
            assertThat(sharing.stream().filter(r -> r.getTimings().getCompileMicros() > 0))
                    .hasSize(1);
            List<ExecutionGraph> descriptors = committed(KafkaOptions.GRAPHS_TOPIC, GRAPHS, 3);
            assertThat(compiled(descriptors).stream().filter(g -> g.getGraphId().equals(shared)))
                    .hasSize(1);
            assertThat(compiled(descriptors)).hasSize(3);
            // the graph's descriptors name both structures, each a signature of its own
            assertThat(
                            descriptors.stream()
                                    .filter(g -> g.getGraphId().equals(shared))
                                    .flatMap(g -> g.getStructures().stream())
                                    .distinct())
                    .hasSize(2)
                    .anySatisfy(st -> assertThat(st).contains("section:termination"))
                    .anySatisfy(st -> assertThat(st).contains("section:fees"));
            // after its fifth run the shared graph is republished with measured node durations
            ExecutionGraph measured =
                    descriptors.stream()
                            .filter(
                                    g ->
                                            g.getGraphId().equals(shared)
                                                    && g.getNodes().stream()
                                                            .anyMatch(
                                                                    n ->
                                                                            n.getParams()
                                                                                    .containsKey(
                                                                                            "measured.runs")))
                            .findFirst()
                            .orElseThrow();
            assertThat(
                            measured.getNodes().stream()
                                    .filter(n -> n.getNodeId().equals("encode"))
                                    .findFirst()
                                    .orElseThrow()
                                    .getParams())
                    .containsEntry("measured.runs", "5")
                    .containsKey("measured.p50-us");
            assertThat(measured.getHardwareReport()).isNotEmpty();
            return shared;
        }

        /**
         * zerolayer inspect prints a graph from the graphs topic, with its choices and their
         * reasons.
         */
        private void inspectPrintsTheGraphWithItsChoices(String shared) {
            java.io.ByteArrayOutputStream inspected = new java.io.ByteArrayOutputStream();
            java.io.PrintStream stdout = System.out;
            int inspectExit;
            try (java.io.PrintStream out =
                    new java.io.PrintStream(inspected, true, StandardCharsets.UTF_8)) {
                System.setOut(out);
                inspectExit =
                        io.zerolayer.cli.ZeroLayerCli.commandLine()
                                .execute(
                                        "inspect",
                                        "--bootstrap-servers",
                                        KAFKA.bootstrapServers(),
                                        "--graphs-topic",
                                        conf.get(KafkaOptions.GRAPHS_TOPIC),
                                        shared.substring(0, 10));
            } finally {
                System.setOut(stdout);
            }
            String report = inspected.toString(StandardCharsets.UTF_8);
            assertThat(inspectExit).isZero();
            assertThat(report)
                    .contains("graph " + shared)
                    .contains("decode/answer")
                    .contains("structures  2 seen")
                    .contains("section:fees")
                    .contains("chunk ")
                    .contains("why tier      ")
                    .contains("the cheapest tier meeting the balanced floor for answer")
                    .contains("tiers considered")
                    .contains("bge-small-en-v1.5-fp32 quality=")
                    .contains("why batch-size")
                    .contains("estimate  ");
        }

        /** One kernel cost record per executed node per request, summing to the reply's cost. */
        private void eachExecutedNodeIsBilledOnce(Map<String, AnalysisResponse> responses) {
            int expectedCosts =
                    responses.values().stream().mapToInt(r -> r.getCost().getKernels()).sum();
            List<KernelCostRecord> costs =
                    committed(KafkaOptions.COSTS_TOPIC, COSTS, expectedCosts);
            assertThat(costs).hasSize(expectedCosts);
            assertThat(costs).extracting(KernelCostRecord::getRecordId).doesNotHaveDuplicates();
            long answerNanos =
                    costs.stream()
                            .filter(c -> c.getRequestId().equals("answer-3"))
                            .mapToLong(KernelCostRecord::getDurationNanos)
                            .sum();
            assertThat(answerNanos).isEqualTo(responses.get("answer-3").getCost().getKernelNanos());
        }

        @Test
        void badInputIsRejectedOrDeadLetteredAndJsonRequestsGetJsonReplies() throws Exception {
            JOB.start();
            String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
            byte[] garbage = {0x00, 0x13, 0x37, (byte) 0xff};
            KAFKA.send(
                    requests,
                    "k-garbage".getBytes(),
                    garbage,
                    "trace-id",
                    "t-1",
                    ZeroLayerHeaders.CORRELATION_ID,
                    "corr-garbage");
            KAFKA.send(
                    requests,
                    null,
                    REQUESTS.encode(request("typo", "<task:clasify><labels>a, b</labels> text")),
                    ZeroLayerHeaders.CORRELATION_ID,
                    "corr-typo");
            KAFKA.send(
                    requests,
                    null,
                    "{\"requestId\":\"json-1\",\"tenantId\":\"kcat\",\"prompt\":\"<task:embed><output_format:json> plain Kafka tools\"}"
                            .getBytes(StandardCharsets.UTF_8),
                    ZeroLayerHeaders.CONTENT_TYPE,
                    "application/json",
                    ZeroLayerHeaders.CORRELATION_ID,
                    "corr-json");

            List<ConsumerRecord<byte[], byte[]>> dead =
                    JOB.readCommitted(conf.get(KafkaOptions.DEAD_LETTERS_TOPIC), 1, REPLY_TIMEOUT);
            assertThat(dead)
                    .singleElement()
                    .satisfies(
                            r -> {
                                assertThat(r.value()).containsExactly(garbage);
                                assertThat(r.key()).isEqualTo("k-garbage".getBytes());
                                assertThat(header(r, "trace-id")).isEqualTo("t-1");
                                assertThat(header(r, ZeroLayerHeaders.DLT_ORIGINAL_TOPIC))
                                        .isEqualTo(requests);
                                assertThat(header(r, ZeroLayerHeaders.DLT_EXCEPTION_FQCN))
                                        .endsWith("UndecodableRecordException");
                                assertThat(header(r, ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE))
                                        .contains("magic");
                                assertThat(
                                                r.headers()
                                                        .lastHeader(
                                                                ZeroLayerHeaders
                                                                        .DLT_ORIGINAL_OFFSET)
                                                        .value())
                                        .hasSize(Long.BYTES);
                                assertThat(
                                                ByteBuffer.wrap(
                                                                r.headers()
                                                                        .lastHeader(
                                                                                ZeroLayerHeaders
                                                                                        .DLT_ORIGINAL_PARTITION)
                                                                        .value())
                                                        .getInt())
                                        .isBetween(0, SLOTS - 1);
                            });

            List<ConsumerRecord<byte[], byte[]>> replies =
                    JOB.readCommitted(JOB.replies(), 2, REPLY_TIMEOUT);
            assertThat(replies).hasSize(2);
            ConsumerRecord<byte[], byte[]> rejected = withCorrelationId(replies, "corr-typo");
            AnalysisResponse rejection = RESPONSES.decode(rejected.value());
            assertThat(rejection.getStatus()).isEqualTo(ResponseStatus.REJECTED);
            assertThat(rejection.getDiagnostics())
                    .singleElement()
                    .satisfies(d -> assertThat(d.getHint()).contains("classify"));

            ConsumerRecord<byte[], byte[]> json = withCorrelationId(replies, "corr-json");
            assertThat(header(json, ZeroLayerHeaders.CONTENT_TYPE)).isEqualTo("application/json");
            JsonNode body = JSON.readTree(json.value());
            assertThat(body.get("status").asText()).isEqualTo("OK");
            assertThat(body.get("result").get("vector")).hasSize(384);
            assertThat(body.get("graphId").asText())
                    .isEqualTo(header(json, ZeroLayerHeaders.GRAPH_ID));
        }

        @Test
        void aCorpusOfBadPromptsAndRecordsLosesNothingAndTheJobKeepsAnswering() throws Exception {
            JOB.start();
            String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
            Map<String, String> prompts = new java.util.LinkedHashMap<>();
            prompts.put(
                    "deep",
                    "<task:summarize>"
                            + "<note>".repeat(100_000)
                            + "The pump failed twice. It was replaced."
                            + "</note>".repeat(100_000));
            prompts.put("lt-flood", "<".repeat(20 << 20));
            prompts.put(
                    "unclosed",
                    "<task:summarize><document format=\"text\">The lease ends in May. Rent is due"
                            + " monthly.");
            prompts.put(
                    "unknown-tag",
                    "<task:summarize><blink>Shipping was late. The box was dented.</blink>");
            prompts.put("misspelled", "<task:summarise> text");
            for (Map.Entry<String, String> p : prompts.entrySet()) {
                KAFKA.send(
                        requests,
                        null,
                        REQUESTS.encode(request(p.getKey(), p.getValue())),
                        ZeroLayerHeaders.CORRELATION_ID,
                        "corr-" + p.getKey());
            }
            byte[] good =
                    REQUESTS.encode(request("after", "<task:embed><note>Still answering.</note>"));
            byte[] invalidUtf8 = REQUESTS.encode(request("utf8", "<task:embed> XYZ"));
            int at = new String(invalidUtf8, StandardCharsets.ISO_8859_1).indexOf("XYZ");
            invalidUtf8[at] = (byte) 0xC3;
            Map<String, byte[]> deadOnArrival = new java.util.LinkedHashMap<>();
            deadOnArrival.put("garbage", new byte[] {0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01});
            deadOnArrival.put("empty", new byte[0]);
            deadOnArrival.put("wrong-schema", HostileRecords.ofAnotherSchema());
            deadOnArrival.put("truncated", java.util.Arrays.copyOf(good, good.length - 7));
            deadOnArrival.put("invalid-utf8", invalidUtf8);
            for (Map.Entry<String, byte[]> d : deadOnArrival.entrySet()) {
                KAFKA.send(
                        requests,
                        d.getKey().getBytes(),
                        d.getValue(),
                        ZeroLayerHeaders.CORRELATION_ID,
                        "corr-" + d.getKey());
            }
            KAFKA.send(requests, null, good, ZeroLayerHeaders.CORRELATION_ID, "corr-after");

            int expectedReplies = prompts.size() + 1;
            List<ConsumerRecord<byte[], byte[]>> replies =
                    JOB.readCommitted(JOB.replies(), expectedReplies, REPLY_TIMEOUT);
            List<ConsumerRecord<byte[], byte[]>> dead =
                    JOB.readCommitted(
                            conf.get(KafkaOptions.DEAD_LETTERS_TOPIC),
                            deadOnArrival.size(),
                            REPLY_TIMEOUT);

            // counting holds: every record sent is exactly one reply or one dead letter
            assertThat(replies.size() + dead.size())
                    .isEqualTo(prompts.size() + deadOnArrival.size() + 1);
            Map<String, AnalysisResponse> byId = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : replies) {
                AnalysisResponse response = RESPONSES.decode(r.value());
                assertThat(header(r, ZeroLayerHeaders.CORRELATION_ID))
                        .isEqualTo("corr-" + response.getRequestId());
                byId.put(response.getRequestId(), response);
            }
            assertThat(byId.keySet())
                    .containsExactlyInAnyOrderElementsOf(
                            java.util.stream.Stream.concat(
                                            prompts.keySet().stream(),
                                            java.util.stream.Stream.of("after"))
                                    .toList());

            AnalysisResponse deep = byId.get("deep");
            assertThat(deep.getFidelity()).isEqualTo(io.zerolayer.schemas.Fidelity.SAFE_MODE);
            assertThat(deep.getOutput()).contains("The pump failed twice.");
            assertThat(deep.getDiagnostics()).extracting(d -> d.getCode()).containsExactly("ZL040");
            assertThat(byId.get("unclosed").getFidelity())
                    .isEqualTo(io.zerolayer.schemas.Fidelity.SAFE_MODE);
            assertThat(byId.get("unknown-tag").getOutput()).contains("Shipping was late.");
            assertThat(byId.get("unknown-tag").getGraphId()).isEqualTo(deep.getGraphId());
            assertThat(byId.get("lt-flood").getStatus()).isEqualTo(ResponseStatus.REJECTED);
            assertThat(byId.get("lt-flood").getDiagnostics())
                    .extracting(d -> d.getCode())
                    .containsExactly("ZL001");
            assertThat(byId.get("misspelled").getDiagnostics().get(0).getHint())
                    .isEqualTo("did you mean <task:summarize>?");
            assertThat(byId.get("after").getStatus()).isEqualTo(ResponseStatus.OK);
            assertThat(byId.get("after").getFidelity())
                    .isEqualTo(io.zerolayer.schemas.Fidelity.FULL);

            Map<String, String> deadReasons = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : dead) {
                String key = new String(r.key(), StandardCharsets.UTF_8);
                assertThat(r.value()).isEqualTo(deadOnArrival.get(key));
                assertThat(header(r, ZeroLayerHeaders.CORRELATION_ID)).isEqualTo("corr-" + key);
                deadReasons.put(key, header(r, ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE));
            }
            assertThat(deadReasons).containsOnlyKeys(deadOnArrival.keySet());
            assertThat(deadReasons.get("empty")).contains("Empty");
            assertThat(deadReasons.get("wrong-schema")).contains("Unknown schema fingerprint");
            assertThat(deadReasons.get("truncated")).contains("Truncated");
            assertThat(deadReasons.get("invalid-utf8")).contains("Invalid UTF-8");
            assertThat(deadReasons.get("garbage")).contains("magic");
        }
    }

    /**
     * Hot graphs spread over the slots; a failing main path falls back and answers every request
     * once.
     */
    @Nested
    class HotGraphsAndFaults {
        @Test
        void aHotStructureUsesEverySlotAndEachShardCompilesOnce() throws Exception {
            conf.set(ExecutorOptions.REQUESTS_PER_SHARD, 1.0); // any burst is hot
            JOB.start();
            String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
            int count = 40;
            for (int i = 0; i < count; i++) {
                KAFKA.send(
                        requests,
                        null,
                        REQUESTS.encode(
                                request(
                                        "hot-" + i,
                                        "<task:embed><note>Reading "
                                                + i
                                                + " of the gauge.</note>")),
                        ZeroLayerHeaders.CORRELATION_ID,
                        "corr-hot-" + i);
            }
            List<AnalysisResponse> responses = exactlyOneReplyEach(count);
            assertThat(responses)
                    .allSatisfy(r -> assertThat(r.getStatus()).isEqualTo(ResponseStatus.OK));
            assertThat(responses.stream().map(AnalysisResponse::getGraphId).distinct()).hasSize(1);
            // one compile per (graph, shard): the hot graph was compiled in each of the slots
            assertThat(responses.stream().filter(r -> r.getTimings().getCompileMicros() > 0))
                    .hasSize(SLOTS);
            List<ExecutionGraph> descriptors = committed(KafkaOptions.GRAPHS_TOPIC, GRAPHS, SLOTS);
            assertThat(compiled(descriptors)).hasSize(SLOTS);
        }

        @Test
        void withMainPathFaultsInjectedEveryRequestIsAnsweredOnceAndTheFallbackAnswersReduced()
                throws Exception {
            conf.set(ExecutorOptions.BATCH_SIZE, 4);
            conf.set(ExecutorOptions.BATCH_MAX_QUEUE_DELAY, Duration.ofMillis(20));
            conf.set(io.zerolayer.jobs.FaultInjection.FAIL_MAIN_EVERY_NTH_BATCH, 2);
            // every request encodes, on the main path or the fallback: none served from a cache
            conf.set(
                    ExecutorOptions.EMBEDDING_CACHE_SIZE,
                    org.apache.flink.configuration.MemorySize.ZERO);
            JOB.start();
            String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
            int count = 32;
            for (int i = 0; i < count; i++) {
                String prompt =
                        i % 4 == 3
                                ? "<task:answer><question>When are invoices due?</question>"
                                        + contract(i)
                                : "<task:summarize><ticket>Ticket "
                                        + i
                                        + ": the parcel came late and the box was crushed. I want a"
                                        + " refund.</ticket>";
                KAFKA.send(
                        requests,
                        null,
                        REQUESTS.encode(request("fault-" + i, prompt)),
                        ZeroLayerHeaders.CORRELATION_ID,
                        "corr-fault-" + i);
            }
            List<AnalysisResponse> responses = exactlyOneReplyEach(count);
            assertThat(responses)
                    .allSatisfy(r -> assertThat(r.getStatus()).isEqualTo(ResponseStatus.OK));
            List<AnalysisResponse> reduced =
                    responses.stream().filter(r -> r.getFidelity() == Fidelity.REDUCED).toList();
            long full = responses.stream().filter(r -> r.getFidelity() == Fidelity.FULL).count();
            assertThat(reduced).isNotEmpty();
            assertThat(full).isPositive();
            assertThat(reduced.size() + full).isEqualTo(count);
            assertThat(reduced)
                    .allSatisfy(
                            r -> {
                                assertThat(r.getDiagnostics())
                                        .anySatisfy(
                                                d -> {
                                                    assertThat(d.getCode()).isEqualTo("ZL092");
                                                    assertThat(d.getMessage())
                                                            .contains("injected fault");
                                                });
                                assertThat(r.getOutput()).isNotBlank();
                            });
            // the fallback's cost records name the model that ran: int8 on the CPU
            Set<String> reducedIds =
                    reduced.stream()
                            .map(AnalysisResponse::getRequestId)
                            .collect(java.util.stream.Collectors.toSet());
            List<KernelCostRecord> encodes =
                    committed(KafkaOptions.COSTS_TOPIC, COSTS, count * 5).stream()
                            .filter(c -> c.getKernel().equals("encode"))
                            .toList();
            assertThat(encodes).hasSize(count);
            assertThat(encodes.stream().filter(c -> reducedIds.contains(c.getRequestId())))
                    .hasSize(reduced.size())
                    .allSatisfy(c -> assertThat(c.getModel()).isEqualTo("minilm-l6-v2-int8"));
        }
    }

    /**
     * Every kernel billed exactly once, and the three views of the bill agree to the nano-dollar.
     */
    @Nested
    class Billing {
        /**
         * Billing tests send the same prompts again and again, run after run: with an embedding
         * cache nearly all of it would be hits, billed below a nano-dollar, and a replay's bill
         * would depend on what the first attempt cached. The cache has tests of its own.
         */
        @org.junit.jupiter.api.BeforeEach
        void withoutEmbeddingCache() {
            conf.set(
                    ExecutorOptions.EMBEDDING_CACHE_SIZE,
                    org.apache.flink.configuration.MemorySize.ZERO);
        }

        @Test
        void costSummariesRecordsAndResponsesReconcilePerTenantToTheNanoDollar() throws Exception {
            JOB.start();
            String requests = conf.get(KafkaOptions.REQUESTS_TOPIC);
            int count = 12;
            sendBillingWorkload(count);
            List<AnalysisResponse> responses = exactlyOneReplyEach(count);
            Map<String, Long> byResponses = new java.util.TreeMap<>();
            responses.forEach(
                    r -> byResponses.merge(r.getTenantId(), r.getCost().getNanoUsd(), Long::sum));
            List<KernelCostRecord> records = costRecordsOf(responses);
            Map<String, Long> byRecords = totalsByTenant(records);
            // the HTML report reads the same committed records from the topic
            java.nio.file.Path report = java.nio.file.Files.createTempFile("costs-", ".html");
            assertThat(
                            io.zerolayer.cli.ZeroLayerCli.commandLine()
                                    .execute(
                                            "costs",
                                            "report",
                                            "--bootstrap-servers",
                                            KAFKA.bootstrapServers(),
                                            "--topic",
                                            conf.get(KafkaOptions.COSTS_TOPIC),
                                            "--out",
                                            report.toString()))
                    .isZero();
            assertThat(java.nio.file.Files.readString(report))
                    .contains(records.size() + " kernel cost records")
                    .contains("\"acme\"");
            assertThat(byRecords).isEqualTo(byResponses);
            assertThat(byRecords.get("acme")).isPositive();

            // event time moves on only with new records: requests of another tenant close the
            // windows
            Map<String, Long> bySummary = new java.util.TreeMap<>();
            long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
            int tick = 0;
            while (!bySummary.keySet().containsAll(byRecords.keySet())
                    || !bySummary.entrySet().stream()
                            .filter(e -> byRecords.containsKey(e.getKey()))
                            .allMatch(e -> e.getValue().equals(byRecords.get(e.getKey())))) {
                assertThat(System.nanoTime())
                        .as("summaries reconcile in time")
                        .isLessThan(deadline);
                KAFKA.send(
                        requests,
                        null,
                        REQUESTS.encode(request("tick-" + tick++, "<task:embed> tick")),
                        ZeroLayerHeaders.CORRELATION_ID,
                        "tick");
                Thread.sleep(500);
                bySummary.clear();
                for (var r : KAFKA.readToEnd(conf.get(KafkaOptions.COST_SUMMARY_TOPIC))) {
                    CostSummary summary = SUMMARIES.decode(r.value());
                    bySummary.merge(summary.getTenantId(), summary.getNanoUsd(), Long::sum);
                }
            }
            // Σ summary = Σ records = Σ response totals, per tenant
            byRecords.forEach(
                    (tenant, total) -> assertThat(bySummary).containsEntry(tenant, total));

            // the Grafana dashboard queries metrics the running job reports, costs by tenant
            // included
            String metrics = scrapeMetrics();
            assertThat(metrics).contains("tenant=\"acme\"");
            // and how often the slots' inference threads ran a batch between another's slices
            assertThat(metrics)
                    .contains("flink_taskmanager_job_task_operator_batches_interleaved_total");
            JsonNode dashboard =
                    JSON.readTree(
                            java.nio.file.Path.of("../docker/grafana/zerolayer-dashboard.json")
                                    .toFile());
            java.util.regex.Pattern metric =
                    java.util.regex.Pattern.compile("flink_taskmanager_job_task_operator_[a-z_]+");
            int queried = 0;
            for (JsonNode panel : dashboard.get("panels")) {
                for (JsonNode target : panel.get("targets")) {
                    var m = metric.matcher(target.get("expr").asText());
                    while (m.find()) {
                        queried++;
                        assertThat(metrics)
                                .as("%s in panel '%s'", m.group(), panel.get("title").asText())
                                .contains(m.group() + "{");
                    }
                }
            }
            assertThat(queried).isGreaterThanOrEqualTo(6);
        }

        /** Sends the billing workload: {@code count} requests of two tenants and two structures. */
        private void sendBillingWorkload(int count) {
            sendBillingWorkload(count, 0);
        }

        /** The workload, a request every {@code spacingMillis}. */
        private void sendBillingWorkload(int count, long spacingMillis) {
            for (int i = 0; i < count; i++) {
                if (spacingMillis > 0) {
                    try {
                        Thread.sleep(spacingMillis);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
                AnalysisRequest r =
                        request(
                                "exact-" + i,
                                i % 4 == 0
                                        ? "<task:answer><question>When are invoices due?</question>"
                                                + contract(i)
                                        : "<task:summarize><ticket>Ticket "
                                                + i
                                                + ": the parcel came late. I want a"
                                                + " refund.</ticket>");
                r.setTenantId(i % 2 == 0 ? "acme" : "globex");
                KAFKA.send(
                        conf.get(KafkaOptions.REQUESTS_TOPIC),
                        null,
                        REQUESTS.encode(r),
                        ZeroLayerHeaders.CORRELATION_ID,
                        "exact-" + i);
            }
        }

        /** The committed cost records of the workload's replies, after checking the replies. */
        private List<KernelCostRecord> billedRecords(int count) {
            return costRecordsOf(exactlyOneReplyEach(count));
        }

        /** The committed cost records of these replies: as many as their kernels. */
        private List<KernelCostRecord> costRecordsOf(List<AnalysisResponse> responses) {
            return committed(
                    KafkaOptions.COSTS_TOPIC,
                    COSTS,
                    responses.stream().mapToInt(r -> r.getCost().getKernels()).sum());
        }

        private static Map<String, Long> totalsByTenant(List<KernelCostRecord> records) {
            Map<String, Long> totals = new java.util.TreeMap<>();
            records.forEach(
                    c ->
                            totals.merge(
                                    c.getTenantId(),
                                    c.getComputeNanoUsd()
                                            + c.getMemoryNanoUsd()
                                            + c.getPcieNanoUsd()
                                            + c.getDeviceTimeNanoUsd(),
                                    Long::sum));
            return totals;
        }

        /**
         * A slot crashes half-way and the job replays from its last checkpoint. Whatever the
         * replies' guarantee, every request is answered and the bill is the failure-free run's;
         * exactly-once replies come once each, at-least-once ones may come twice, alike.
         */
        @ParameterizedTest
        @EnumSource(ReplyDelivery.class)
        void aJobThatFailsMidStreamAnswersEveryRequestAndBillsEveryKernelExactlyOnce(
                ReplyDelivery delivery) throws Exception {
            int count = 16;
            conf.set(KafkaOptions.REPLY_DELIVERY, delivery);
            // batches of one, so a request's bill cannot depend on how a replay regroups requests
            conf.set(ExecutorOptions.BATCH_SIZE, 1);
            // the failure-free bill, run once for both guarantees: a bill must not depend on how
            // replies are delivered either
            List<KernelCostRecord> clean = CLEAN_BILL.get();
            if (clean == null) {
                JOB.start();
                sendBillingWorkload(count);
                clean = billedRecords(count);
                JOB.cancel();
                CLEAN_BILL.set(clean);
            }

            // the same requests again, on fresh topics, with a slot crashing half-way through
            for (var topic : List.of(KafkaOptions.REQUESTS_TOPIC, KafkaOptions.COSTS_TOPIC)) {
                conf.set(topic, freshTopic("exact-b"));
                KAFKA.broker().createTopics(Map.of(conf.get(topic), SLOTS));
            }
            KAFKA.createFreshReplyTopics(conf);
            conf.set(KafkaOptions.GROUP_ID, freshTopic("group-exact-b"));
            conf.set(KafkaOptions.TRANSACTIONAL_ID_PREFIX, freshTopic("tx-exact-b"));
            conf.set(io.zerolayer.jobs.FaultInjection.CRASH_AFTER_REQUESTS, 4);
            // requests spaced out, so a slot's first ones are answered before its fourth arrives
            // and crashes it, and checkpoints rare, so those answers mostly come after the last
            // checkpoint: at least once, they are then sent again after the restart
            conf.set(ExecutorOptions.CHECKPOINT_INTERVAL, Duration.ofSeconds(2));
            io.zerolayer.operators.scheduling.InjectedCrash.reset();
            JOB.start();
            awaitSlotsReady();
            sendBillingWorkload(count, 100);
            List<AnalysisResponse> answered =
                    delivery == ReplyDelivery.EXACTLY_ONCE
                            ? exactlyOneReplyEach(count)
                            : atLeastOneReplyEach(count);
            List<KernelCostRecord> replayed = costRecordsOf(answered);
            assertThat(io.zerolayer.operators.scheduling.InjectedCrash.happened())
                    .as("the job failed and restarted mid-stream")
                    .isTrue();

            // read_committed: no record twice, none missing, the same money
            assertThat(replayed).extracting(KernelCostRecord::getRecordId).doesNotHaveDuplicates();
            assertThat(replayed.stream().map(KernelCostRecord::getRecordId).sorted().toList())
                    .isEqualTo(clean.stream().map(KernelCostRecord::getRecordId).sorted().toList());
            assertThat(totalsByTenant(replayed))
                    .isEqualTo(totalsByTenant(clean))
                    .containsKeys("acme", "globex");
        }

        /** Waits until every executor slot of the running job reports it can serve warm. */
        private void awaitSlotsReady() throws InterruptedException {
            long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
            while (scrapeMetrics()
                            .lines()
                            .filter(
                                    l ->
                                            l.startsWith(
                                                    "flink_taskmanager_job_task_operator_graphs_ready"))
                            .count()
                    < SLOTS) {
                assertThat(System.nanoTime())
                        .as("executor slots ready in time")
                        .isLessThan(deadline);
                Thread.sleep(100);
            }
        }

        /**
         * One reply per request, after checking that every request has one and that any duplicate
         * carries the first one's correlation id, reply id and answer.
         */
        private List<AnalysisResponse> atLeastOneReplyEach(int count) {
            Set<String> requests = new java.util.HashSet<>();
            List<ConsumerRecord<byte[], byte[]>> records =
                    KAFKA.readUntil(
                            JOB.replies(),
                            r ->
                                    requests.add(new String(r.key(), StandardCharsets.UTF_8))
                                            && requests.size() == count,
                            REPLY_TIMEOUT);
            // duplicates of the last replies may still be on their way
            records = JOB.readCommitted(JOB.replies(), records.size(), REPLY_TIMEOUT);
            Map<String, List<ConsumerRecord<byte[], byte[]>>> byRequest =
                    records.stream()
                            .collect(
                                    Collectors.groupingBy(
                                            r -> RESPONSES.decode(r.value()).getRequestId(),
                                            java.util.TreeMap::new,
                                            Collectors.toList()));
            assertThat(byRequest).as("requests answered").hasSize(count);
            System.out.printf(
                    "at-least-once replies after a restart: %d for %d requests%n",
                    records.size(), count);
            List<AnalysisResponse> first = new ArrayList<>();
            byRequest.forEach(
                    (id, replies) -> {
                        ConsumerRecord<byte[], byte[]> one = replies.get(0);
                        AnalysisResponse answer = RESPONSES.decode(one.value());
                        assertThat(header(one, ZeroLayerHeaders.CORRELATION_ID)).isEqualTo(id);
                        assertThat(header(one, ZeroLayerHeaders.REPLY_ID))
                                .startsWith(conf.get(KafkaOptions.REQUESTS_TOPIC) + "/");
                        for (ConsumerRecord<byte[], byte[]> again : replies) {
                            AnalysisResponse duplicate = RESPONSES.decode(again.value());
                            assertThat(header(again, ZeroLayerHeaders.CORRELATION_ID))
                                    .as("correlation id of a duplicate of %s", id)
                                    .isEqualTo(header(one, ZeroLayerHeaders.CORRELATION_ID));
                            assertThat(header(again, ZeroLayerHeaders.REPLY_ID))
                                    .as("reply id of a duplicate of %s", id)
                                    .isEqualTo(header(one, ZeroLayerHeaders.REPLY_ID));
                            assertThat(duplicate.getOutput()).isEqualTo(answer.getOutput());
                            assertThat(duplicate.getCost().getNanoUsd())
                                    .isEqualTo(answer.getCost().getNanoUsd());
                        }
                        first.add(answer);
                    });
            return first;
        }
    }

    /** What survives a restart, how few transactional ids the sinks use, and the control topic. */
    @Nested
    class RestartsAndControl {
        @Test
        void aRestartedJobRecompilesItsGraphsFromTheGraphsTopicBeforeTheFirstRequest()
                throws Exception {
            JOB.start();
            AnalysisResponse before =
                    roundTrip(
                            "before-restart",
                            "<task:answer><output_format:json><question>Who pays?</question>"
                                    + contract(0));
            assertThat(before.getTimings().getCompileMicros()).isPositive();
            // a job started afresh (no checkpoint to restore) resumes from the group's committed
            // offsets; a source commits them as checkpoints complete, the first ones only once its
            // consumer has found the group coordinator (seconds, on a fresh broker)
            awaitCommittedOffsets(1);
            JOB.cancel();
            conf.set(KafkaOptions.TRANSACTIONAL_ID_PREFIX, freshTopic("tx-restart"));
            JOB.start();
            // same structure, other words: its graph was rebuilt from the descriptor's signature
            AnalysisResponse after =
                    roundTrip(
                            "after-restart",
                            "<task:answer><output_format:json><question>When can it end?</question>"
                                    + contract(1));
            assertThat(after.getGraphId()).isEqualTo(before.getGraphId());
            assertThat(after.getTimings().getCompileMicros()).as("warm after the restart").isZero();
            assertThat(
                            JOB.readCommitted(JOB.replies(), 2, REPLY_TIMEOUT).stream()
                                    .map(r -> RESPONSES.decode(r.value()).getRequestId()))
                    .as("the restarted job resumed after the request answered before it")
                    .containsExactlyInAnyOrder("before-restart", "after-restart");
        }

        @Test
        void everySinkKeepsAFewTransactionalIdsHoweverManyCheckpointsPass() throws Exception {
            conf.set(KafkaOptions.REPLY_DELIVERY, ReplyDelivery.EXACTLY_ONCE);
            // checkpoints as often as the job can take them: the round trips below wait for them
            conf.set(ExecutorOptions.CHECKPOINT_INTERVAL, Duration.ofMillis(100));
            JOB.start();
            // each exactly-once reply waits for the checkpoint that commits it, so 16 round trips
            // in a row span at least 16 checkpoints: a sink naming a transaction per checkpoint
            // leaves at least 16 ids per writer on the broker, each kept there for
            // transactional.id.expiration.ms
            for (int i = 0; i < 16; i++) {
                assertThat(
                                roundTrip(
                                                "tx-" + i,
                                                "<task:answer><output_format:json><question>Who"
                                                        + " pays?</question>"
                                                        + contract(i))
                                        .getStatus())
                        .isEqualTo(ResponseStatus.OK);
            }
            String prefix = conf.get(KafkaOptions.TRANSACTIONAL_ID_PREFIX) + "-";
            Map<String, Set<String>> idsBySink;
            try (var admin =
                    org.apache.kafka.clients.admin.Admin.create(
                            Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
                // an id is <prefix>-<sink>-<subtask>-<n>; group them by sink
                idsBySink =
                        admin.listTransactions().all().get().stream()
                                .map(
                                        org.apache.kafka.clients.admin.TransactionListing
                                                ::transactionalId)
                                .filter(id -> id.startsWith(prefix))
                                .collect(
                                        Collectors.groupingBy(
                                                id -> {
                                                    String writer =
                                                            id.substring(0, id.lastIndexOf('-'));
                                                    return writer.substring(
                                                            prefix.length(),
                                                            writer.lastIndexOf('-'));
                                                },
                                                Collectors.toSet()));
            }
            // two writers a sink (one per slot), a few ids each: the one in use and those waiting
            // for their checkpoint's commit (one at a time here; three allowed)
            // (the replies sink too: it names its topics as the allow-list's pattern)
            for (String sink : List.of("replies", "costs", "graphs", "cost-summary", "dlt")) {
                assertThat(idsBySink.get(sink))
                        .as("transactional ids of the %s sink", sink)
                        .isNotEmpty()
                        .hasSizeLessThanOrEqualTo(3 * SLOTS);
            }
        }

        /** Waits until the job's consumer group has committed offsets past {@code requests}. */
        private void awaitCommittedOffsets(long requests) throws Exception {
            long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
            try (var admin =
                    org.apache.kafka.clients.admin.Admin.create(
                            Map.of("bootstrap.servers", KAFKA.bootstrapServers()))) {
                long committed = 0;
                while (committed < requests) {
                    assertThat(System.nanoTime())
                            .as("offsets of %d requests committed in time", requests)
                            .isLessThan(deadline);
                    Thread.sleep(100);
                    committed =
                            admin
                                    .listConsumerGroupOffsets(conf.get(KafkaOptions.GROUP_ID))
                                    .partitionsToOffsetAndMetadata()
                                    .get()
                                    .values()
                                    .stream()
                                    .mapToLong(o -> o == null ? 0 : o.offset())
                                    .sum();
                }
            }
        }

        /** Sends one request and waits for its reply. */
        /**
         * Sends requests {@code ask.apply(0)}, {@code ask.apply(1)}, … one at a time until a reply
         * satisfies {@code until}, and returns it; fails after {@link #REPLY_TIMEOUT}.
         */
        private AnalysisResponse until(
                java.util.function.IntFunction<AnalysisResponse> ask,
                java.util.function.Predicate<AnalysisResponse> until) {
            long deadline = System.nanoTime() + REPLY_TIMEOUT.toNanos();
            for (int n = 0; System.nanoTime() < deadline; n++) {
                AnalysisResponse r = ask.apply(n);
                if (until.test(r)) {
                    return r;
                }
            }
            throw new AssertionError("No reply as wanted within " + REPLY_TIMEOUT);
        }

        private AnalysisResponse roundTrip(String id, String prompt) {
            KAFKA.send(
                    conf.get(KafkaOptions.REQUESTS_TOPIC),
                    null,
                    REQUESTS.encode(request(id, prompt)));
            return replyTo(id);
        }

        /**
         * The reply to {@code id} on the responses topic, however many other replies came first (a
         * job started afresh after a cancel may answer again what its last checkpoint had not yet
         * committed offsets for).
         */
        private AnalysisResponse replyTo(String id) {
            return KAFKA
                    .readUntil(
                            JOB.replies(),
                            r -> RESPONSES.decode(r.value()).getRequestId().equals(id),
                            REPLY_TIMEOUT)
                    .stream()
                    .map(r -> RESPONSES.decode(r.value()))
                    .filter(r -> r.getRequestId().equals(id))
                    .findFirst()
                    .orElseThrow(
                            () ->
                                    new AssertionError(
                                            "no reply to " + id + " within " + REPLY_TIMEOUT));
        }

        @Test
        void cacheTtlClearCacheAndReloadContractsThroughTheControlTopic() throws Exception {
            // long enough that a reply's round trip (checkpoint included) never outlasts it on a
            // busy
            // machine, short enough to wait out
            conf.set(ExecutorOptions.GRAPH_CACHE_TTL, Duration.ofSeconds(5));
            JOB.start();
            String prompt = "<task:embed><note>Valve 7 was replaced.</note>";
            assertThat(roundTrip("first", prompt).getTimings().getCompileMicros()).isPositive();
            assertThat(roundTrip("warm", prompt).getTimings().getCompileMicros()).isZero();
            // not a wait for something to happen: the graph must sit unused for longer than its TTL
            Thread.sleep(conf.get(ExecutorOptions.GRAPH_CACHE_TTL).plusSeconds(1).toMillis());
            assertThat(roundTrip("after-ttl", prompt).getTimings().getCompileMicros())
                    .as("idle past the TTL")
                    .isPositive();

            String control = conf.get(KafkaOptions.CONTROL_TOPIC);
            KAFKA.send(
                    control,
                    null,
                    new io.zerolayer.operators.flink.ControlCommand("clear-cache", null).toJson());
            // the command reaches the slot when it does: ask until a request compiles again, which
            // within the TTL only clear-cache explains
            assertThat(
                            until(
                                    n -> roundTrip("after-clear-" + n, prompt),
                                    r -> r.getTimings().getCompileMicros() > 0))
                    .as("after clear-cache")
                    .isNotNull();

            AnalysisResponse before = roundTrip("digest-before", "<task:digest> The pump failed.");
            assertThat(before.getStatus()).isEqualTo(ResponseStatus.REJECTED);
            String contracts =
                    io.zerolayer.operators.contracts.TaskContracts.builtIn()
                            .source()
                            .replace("version: 1", "version: 2")
                            .replace(
                                    "  extract:\n", "  digest: {decoder: summarize}\n  extract:\n");
            KAFKA.send(
                    control,
                    null,
                    new io.zerolayer.operators.flink.ControlCommand("reload-contracts", contracts)
                            .toJson());
            // both operators apply it when it reaches them: ask until a digest is answered
            AnalysisResponse after =
                    until(
                            n ->
                                    roundTrip(
                                            "digest-after-" + n,
                                            "<task:digest> The pump failed. It was replaced."),
                            r -> r.getStatus() == ResponseStatus.OK);
            assertThat(after.getStatus()).isEqualTo(ResponseStatus.OK);
            assertThat(after.getTask()).isEqualTo("digest");
            AnalysisResponse embedUnderV2 = roundTrip("embed-v2", prompt);
            assertThat(embedUnderV2.getGraphId())
                    .as("the contracts' version is part of the graph id")
                    .isNotEqualTo(replyTo("first").getGraphId());
        }
    }

    /** The committed replies, checked to be exactly {@code count}, one per request id. */
    private List<AnalysisResponse> exactlyOneReplyEach(int count) {
        List<AnalysisResponse> responses =
                JOB.readCommitted(JOB.replies(), count, REPLY_TIMEOUT).stream()
                        .map(r -> RESPONSES.decode(r.value()))
                        .toList();
        assertThat(responses).hasSize(count);
        assertThat(responses.stream().map(AnalysisResponse::getRequestId).distinct())
                .hasSize(count);
        return responses;
    }

    /**
     * Descriptors published when a graph is compiled: with at most the one structure it was
     * compiled for (the SAFE graph names none), and no measurements yet — not the later ones that
     * add a structure or carry measurements.
     */
    private static List<ExecutionGraph> compiled(List<ExecutionGraph> descriptors) {
        return descriptors.stream()
                .filter(
                        g ->
                                g.getStructures().size() <= 1
                                        && g.getNodes().stream()
                                                .noneMatch(
                                                        n ->
                                                                n.getParams()
                                                                        .containsKey(
                                                                                "measured.runs")))
                .toList();
    }
}

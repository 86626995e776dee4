package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.operators.eval.ClassificationCorpus;
import io.zerolayer.operators.eval.EvalCorpora;
import io.zerolayer.operators.eval.LabelledText;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.EmbeddedKafkaExtension;
import io.zerolayer.tests.testutils.PrometheusCluster;
import io.zerolayer.tests.testutils.StreamingJobExtension;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Table;
import org.apache.flink.table.api.bridge.java.StreamTableEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.types.Row;
import org.apache.flink.util.CloseableIterator;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ZeroLayer from Flink SQL: {@code CREATE MODEL … WITH ('provider' = 'zerolayer')} and {@code
 * ML_PREDICT} over a table of Reuters articles (the labelled public corpus {@code zerolayer eval}
 * measures classification on) answer as the streaming job answers the same documents and task,
 * batched and with every kernel's cost in the row; a model whose options the task contracts reject
 * fails when its query is planned, with the contracts' diagnostics.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SqlModelITCase {
    private static final int SLOTS = 2;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final PrometheusCluster METRICS = new PrometheusCluster(9390, 9399);
    private static final SingleObjectCodec<AnalysisRequest> REQUESTS =
            SingleObjectCodec.of(AnalysisRequest.class);
    private static final SingleObjectCodec<AnalysisResponse> RESPONSES =
            SingleObjectCodec.of(AnalysisResponse.class);

    /** Articles of the table: the first of each topic, as many of each. */
    private static final int PER_TOPIC = 8;

    @RegisterExtension
    @org.junit.jupiter.api.Order(1)
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    @org.junit.jupiter.api.Order(2)
    static final MiniClusterExtension FLINK = METRICS.extension(SLOTS);

    @RegisterExtension
    @org.junit.jupiter.api.Order(3)
    static final StreamingJobExtension JOB = new StreamingJobExtension(KAFKA, SLOTS, METRICS);

    private static ClassificationCorpus corpus;
    private static List<LabelledText> articles;

    private static void readCorpus() throws Exception {
        if (corpus != null) {
            return;
        }
        corpus =
                new EvalCorpora(
                                Path.of(
                                        "..",
                                        "operators",
                                        "src",
                                        "test",
                                        "resources",
                                        "quality-corpora"))
                        .classification()
                        .get(0);
        articles = new ArrayList<>();
        for (String topic : corpus.hypotheses().keySet()) {
            corpus.items().stream()
                    .filter(a -> a.label().equals(topic))
                    .limit(PER_TOPIC)
                    .forEach(articles::add);
        }
    }

    /** The labels the model offers, as {@code zerolayer eval} words them. */
    private static String labels() {
        return String.join(", ", corpus.hypotheses().values());
    }

    private static StreamTableEnvironment sql() {
        return StreamTableEnvironment.create(StreamExecutionEnvironment.getExecutionEnvironment());
    }

    @Test
    @Order(1)
    void mlPredictAnswersAsTheStreamingJobDoesBatchedAndBilledPerKernel() throws Exception {
        readCorpus();
        // the streaming job, sent each article as zerolayer analyze writes its prompt
        JOB.start();
        var conf = JOB.conf();
        Map<String, AnalysisTask> tasks =
                Map.of(
                        "classify",
                        AnalysisTask.builder("classify").labels(labels()).build(),
                        "summarize",
                        AnalysisTask.builder("summarize").sentences(2).build());
        for (LabelledText a : articles) {
            for (var task : tasks.entrySet()) {
                send(conf, a.id() + "/" + task.getKey(), task.getValue(), a.text());
            }
        }
        Map<String, AnalysisResponse> streamed = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r :
                KAFKA.read(JOB.replies(), 2 * articles.size(), TIMEOUT, Duration.ZERO)) {
            AnalysisResponse response = RESPONSES.decode(r.value());
            streamed.put(response.getRequestId(), response);
        }
        JOB.cancel();
        assertThat(streamed).hasSize(2 * articles.size());

        // the same articles through ML_PREDICT
        StreamTableEnvironment tEnv = sql();
        Table table =
                tEnv.fromValues(
                        DataTypes.ROW(
                                DataTypes.FIELD("id", DataTypes.STRING()),
                                DataTypes.FIELD("doc", DataTypes.STRING())),
                        articles.stream().map(a -> Row.of(a.id(), a.text())).toArray());
        tEnv.createTemporaryView("articles", table);
        tEnv.executeSql(
                "CREATE MODEL topic INPUT (doc STRING) OUTPUT (label STRING, score DOUBLE,"
                        + " status STRING, cost_nano_usd BIGINT, kernel_costs ARRAY<ROW<record_id"
                        + " STRING, node STRING, kernel STRING, device STRING, duration_nanos"
                        + " BIGINT, batch_size INT, request_items INT, nano_usd BIGINT>>)"
                        + " WITH ('provider' = 'zerolayer', 'task' = 'classify', 'labels' = '"
                        + labels().replace("'", "''")
                        + "')");
        List<Row> rows =
                collect(
                        tEnv,
                        "SELECT id, label, score, status, cost_nano_usd, kernel_costs"
                                + " FROM ML_PREDICT(TABLE articles, MODEL topic, DESCRIPTOR(doc))");
        assertThat(rows).hasSize(articles.size());

        var json = new com.fasterxml.jackson.databind.ObjectMapper();
        Set<String> recordIds = new HashSet<>();
        boolean shared = false;
        for (Row row : rows) {
            String id = (String) row.getField("id");
            assertThat(row.getField("status")).as(id).isEqualTo("OK");
            var answer = json.readTree(streamed.get(id + "/classify").getOutput());
            assertThat(row.getField("label")).as(id).isEqualTo(answer.path("label").asText());
            // an answer does not depend on the rows batched with it (the reply rounds to 1e-4)
            assertThat((Double) row.getField("score"))
                    .as(id)
                    .isCloseTo(
                            answer.path("scores").path(0).path("probability").asDouble(),
                            org.assertj.core.data.Offset.offset(2e-4));
            Row[] kernels = (Row[]) row.getField("kernel_costs");
            assertThat(kernels).as(id).isNotEmpty();
            long sum = 0;
            for (Row k : kernels) {
                assertThat(recordIds.add((String) k.getField("record_id")))
                        .as("cost record %s once", k.getField("record_id"))
                        .isTrue();
                sum += (Long) k.getField("nano_usd");
                if ("encode".equals(k.getField("kernel"))
                        && (Integer) k.getField("batch_size")
                                > (Integer) k.getField("request_items")) {
                    shared = true;
                }
            }
            assertThat((Long) row.getField("cost_nano_usd")).as(id).isEqualTo(sum).isPositive();
        }
        assertThat(shared).as("some row's encoder pass was shared with other rows").isTrue();

        // the bill as a table of its own, a cost record a row, as docs/sql.md writes it
        List<Row> bill =
                collect(
                        tEnv,
                        "SELECT id, k.record_id, k.kernel, k.nano_usd FROM ML_PREDICT(TABLE"
                                + " articles, MODEL topic, DESCRIPTOR(doc)) CROSS JOIN"
                                + " UNNEST(kernel_costs) AS k (record_id, node, kernel, device,"
                                + " duration_nanos, batch_size, request_items, nano_usd)");
        // a record for every kernel each article ran this time (its sequences came from the
        // TaskManager's embedding cache now: a cache kernel in place of the encoder's)
        assertThat(bill.stream().map(r -> r.getField("id")).distinct())
                .containsExactlyInAnyOrderElementsOf(
                        articles.stream().map(LabelledText::id).toList());
        assertThat(bill).extracting(r -> r.getField("kernel")).contains("cache");
        assertThat(bill).allSatisfy(r -> assertThat((Long) r.getField("nano_usd")).isNotNegative());
        assertThat(bill.stream().map(r -> r.getField("record_id")).distinct()).hasSize(bill.size());

        // another task on the same table: the summaries the streaming job wrote
        tEnv.executeSql(
                "CREATE MODEL gist INPUT (doc STRING) OUTPUT (summary STRING, status STRING)"
                        + " WITH ('provider' = 'zerolayer', 'task' = 'summarize', 'sentences' ="
                        + " '2')");
        List<Row> summaries =
                collect(
                        tEnv,
                        "SELECT id, summary, status FROM ML_PREDICT(TABLE articles, MODEL gist,"
                                + " DESCRIPTOR(doc))");
        assertThat(summaries).hasSize(articles.size());
        for (Row row : summaries) {
            String id = (String) row.getField("id");
            assertThat(row.getField("status")).as(id).isEqualTo("OK");
            List<String> sentences = new ArrayList<>();
            json.readTree(streamed.get(id + "/summarize").getOutput())
                    .path("sentences")
                    .forEach(x -> sentences.add(x.path("text").asText()));
            assertThat(sentences).as(id).isNotEmpty();
            assertThat(row.getField("summary")).as(id).isEqualTo(String.join(" ", sentences));
        }
    }

    private static List<Row> collect(StreamTableEnvironment tEnv, String query) throws Exception {
        List<Row> rows = new ArrayList<>();
        try (CloseableIterator<Row> it = tEnv.executeSql(query).collect()) {
            it.forEachRemaining(rows::add);
        }
        return rows;
    }

    @Test
    @Order(2)
    void optionsTheContractsRejectFailWhenTheQueryIsPlannedWithTheirDiagnostics() throws Exception {
        readCorpus();
        StreamTableEnvironment tEnv = sql();
        tEnv.createTemporaryView(
                "docs",
                tEnv.fromValues(
                        DataTypes.ROW(DataTypes.FIELD("doc", DataTypes.STRING())), Row.of("text")));
        Map<String, String> models =
                Map.of(
                        "misspelt",
                        "OUTPUT (label STRING) WITH ('provider' = 'zerolayer', 'task' = 'clasify',"
                                + " 'labels' = 'a, b')",
                        "nolabels",
                        "OUTPUT (label STRING) WITH ('provider' = 'zerolayer', 'task' ="
                                + " 'classify')",
                        "toolong",
                        "OUTPUT (summary STRING) WITH ('provider' = 'zerolayer', 'task' ="
                                + " 'summarize', 'sentences' = '99')",
                        "wrongcolumn",
                        "OUTPUT (answer STRING) WITH ('provider' = 'zerolayer', 'task' ="
                                + " 'classify', 'labels' = 'a, b')",
                        "unknownoption",
                        "OUTPUT (label STRING) WITH ('provider' = 'zerolayer', 'task' = 'classify',"
                                + " 'labels' = 'a, b', 'temperature' = '0.7')",
                        "compliance",
                        "OUTPUT (label STRING) WITH ('provider' = 'zerolayer', 'task' = 'classify',"
                                + " 'labels' = 'a, b', 'compliance' = 'paranoid')",
                        "quality",
                        "OUTPUT (label STRING) WITH ('provider' = 'zerolayer', 'task' = 'classify',"
                                + " 'labels' = 'a, b', 'quality' = 'perfect')");
        Map<String, String> expected =
                Map.of(
                        "misspelt", "error[ZL010]: Unknown task 'clasify'",
                        "nolabels", "error[ZL011]: Task 'classify' needs a non-empty <labels>",
                        "toolong", "error[ZL024]: attribute sentences of <task> is 99",
                        "wrongcolumn", "output column answer STRING is not one ZeroLayer fills",
                        "unknownoption", "temperature",
                        "compliance", "Option 'compliance' is 'paranoid'",
                        "quality", "Option quality must be fast, balanced or best, not 'perfect'");
        for (var m : models.entrySet()) {
            // a model is only stored when created; its options are checked when a query uses it
            tEnv.executeSql("CREATE MODEL " + m.getKey() + " INPUT (doc STRING) " + m.getValue());
            assertThatThrownBy(
                            () ->
                                    tEnv.explainSql(
                                            "SELECT * FROM ML_PREDICT(TABLE docs, MODEL "
                                                    + m.getKey()
                                                    + ", DESCRIPTOR(doc))"))
                    .as(m.getKey())
                    .satisfies(
                            e ->
                                    assertThat(chain(e))
                                            .as(m.getKey())
                                            .contains(expected.get(m.getKey())));
        }
    }

    /** Sends {@code text} under {@code task} as {@code zerolayer analyze} writes its prompt. */
    private static void send(
            org.apache.flink.configuration.Configuration conf,
            String id,
            AnalysisTask task,
            String text) {
        String prompt = task.promptForText(text, DocumentFormat.TEXT);
        KAFKA.send(
                conf.get(KafkaOptions.REQUESTS_TOPIC),
                null,
                REQUESTS.encode(
                        AnalysisRequest.newBuilder()
                                .setRequestId(id)
                                .setTenantId("acme")
                                .setPrompt(prompt)
                                .setSubmittedAt(Instant.now())
                                .setAttributes(Map.of())
                                .build()),
                ZeroLayerHeaders.CORRELATION_ID,
                id);
    }

    @Test
    @Order(4)
    void aModelWithExamplesAnswersByTheHeadFitOnThemAndBadExamplesFailAtPlanning()
            throws Exception {
        StreamTableEnvironment tEnv = sql();
        tEnv.createTemporaryView(
                "tickets",
                tEnv.fromValues(
                        DataTypes.ROW(DataTypes.FIELD("doc", DataTypes.STRING())),
                        Row.of("The toaster broke on day one, I want my money back."),
                        Row.of("Since this morning your website does not load at all.")));
        String examples =
                "[{\"text\": \"Please refund my order, it arrived damaged.\", \"label\":"
                        + " \"refund\"}, {\"text\": \"Cancel the purchase and return my"
                        + " payment.\", \"label\": \"refund\"}, {\"text\": \"I was charged"
                        + " twice, give the money back.\", \"label\": \"refund\"}, {\"text\":"
                        + " \"The service is down and every page times out.\", \"label\":"
                        + " \"outage\"}, {\"text\": \"Your servers do not respond since"
                        + " noon.\", \"label\": \"outage\"}, {\"text\": \"The app cannot"
                        + " reach the API at all today.\", \"label\": \"outage\"}]";
        tEnv.executeSql(
                "CREATE MODEL taught INPUT (doc STRING) OUTPUT (label STRING, score DOUBLE,"
                        + " status STRING, kernel_costs ARRAY<ROW<record_id STRING, node STRING,"
                        + " kernel STRING, device STRING, duration_nanos BIGINT, batch_size INT,"
                        + " request_items INT, nano_usd BIGINT>>) WITH ('provider' = 'zerolayer',"
                        + " 'task' = 'classify', 'examples' = '"
                        + examples.replace("'", "''")
                        + "')");
        List<Row> rows =
                collect(
                        tEnv,
                        "SELECT doc, label, score, status, kernel_costs FROM ML_PREDICT(TABLE"
                                + " tickets, MODEL taught, DESCRIPTOR(doc))");
        assertThat(rows).hasSize(2);
        for (Row row : rows) {
            String doc = (String) row.getField("doc");
            assertThat(row.getField("status")).as(doc).isEqualTo("OK");
            assertThat(row.getField("label"))
                    .as(doc)
                    .isEqualTo(doc.contains("money") ? "refund" : "outage");
            assertThat((Double) row.getField("score")).as(doc).isBetween(0.5, 1.0);
            assertThat((Row[]) row.getField("kernel_costs"))
                    .as(doc)
                    .extracting(k -> k.getField("kernel"))
                    .contains("head");
        }
        tEnv.executeSql(
                "CREATE MODEL halftaught INPUT (doc STRING) OUTPUT (label STRING) WITH"
                        + " ('provider' = 'zerolayer', 'task' = 'classify', 'examples' ="
                        + " '[{\"text\": \"Refund me\", \"label\": \"refund\"}]')");
        assertThatThrownBy(
                        () ->
                                tEnv.explainSql(
                                        "SELECT * FROM ML_PREDICT(TABLE tickets, MODEL halftaught,"
                                                + " DESCRIPTOR(doc))"))
                .satisfies(
                        e ->
                                assertThat(chain(e))
                                        .contains("'examples'")
                                        .contains("every label needs at least 2 examples"));
    }

    @Test
    @Order(3)
    void aModelIsOnlyAsynchronousSoThatItsRowsBatch() {
        StreamTableEnvironment tEnv = sql();
        tEnv.createTemporaryView(
                "docs",
                tEnv.fromValues(
                        DataTypes.ROW(DataTypes.FIELD("doc", DataTypes.STRING())), Row.of("text")));
        tEnv.executeSql(
                "CREATE MODEL triage INPUT (doc STRING) OUTPUT (label STRING) WITH ('provider' ="
                        + " 'zerolayer', 'task' = 'classify', 'labels' = 'a, b')");
        assertThat(
                        tEnv.explainSql(
                                "SELECT * FROM ML_PREDICT(TABLE docs, MODEL triage,"
                                        + " DESCRIPTOR(doc))"))
                .contains("MLPredict");
        assertThatThrownBy(
                        () ->
                                tEnv.explainSql(
                                        "SELECT * FROM ML_PREDICT(TABLE docs, MODEL triage,"
                                                + " DESCRIPTOR(doc), MAP['async', 'false'])"))
                .satisfies(e -> assertThat(chain(e)).contains("doesn't support sync mode"));
    }

    /** Every message of an exception's causes, joined. */
    private static String chain(Throwable e) {
        List<String> messages = new ArrayList<>();
        for (Throwable t = e; t != null; t = t.getCause()) {
            messages.add(String.valueOf(t.getMessage()));
        }
        return messages.stream().collect(Collectors.joining("\n"));
    }
}

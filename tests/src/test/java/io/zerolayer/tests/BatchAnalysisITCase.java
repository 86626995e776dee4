package io.zerolayer.tests;

import static io.zerolayer.tests.testutils.EmbeddedKafkaExtension.freshTopic;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.analyze.AnalysisRun;
import io.zerolayer.analyze.AnalysisSummary;
import io.zerolayer.jobs.AnalyzeOptions;
import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.StreamingJob;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.Document;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.operators.documents.DocumentReaders;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.KernelCostRecord;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.tests.testutils.EmbeddedKafkaExtension;
import io.zerolayer.tests.testutils.JobCheckpoints;
import io.zerolayer.tests.testutils.TestPdfs;
import io.zerolayer.tests.testutils.TestTenants;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zerolayer analyze} end to end on a MiniCluster in BATCH mode, over a folder with every
 * format it reads (the PDF made here with PDFBox), unreadable files among them; then resume; then
 * the same document through the streaming job on a real broker, which must give the same answer and
 * the same cost records.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BatchAnalysisITCase {
    private static final int SLOTS = 2;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    @org.junit.jupiter.api.Order(1)
    static final EmbeddedKafkaExtension KAFKA = new EmbeddedKafkaExtension();

    @RegisterExtension
    @org.junit.jupiter.api.Order(2)
    static final MiniClusterExtension FLINK =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(SLOTS * 4)
                            .build());

    @TempDir static Path dir;
    static Path docs;
    static String paperText;

    static final String LEASE =
            "This Lease Agreement is made between Northwind Properties Ltd and Jane Doe for the"
                    + " apartment at 12 Harbour Street.\n\nThe Tenant shall pay a monthly rent of"
                    + " 1,450 euros on the first day of each month. Rent paid more than five days"
                    + " late incurs a fee of fifty euros.\n\nThe Tenant shall pay a security"
                    + " deposit of two months' rent, returned within thirty days of the end of the"
                    + " lease.\n\nPets are not allowed without the Landlord's written consent.\n";

    @BeforeAll
    static void writeDocuments() throws Exception {
        docs = Files.createDirectories(dir.resolve("docs"));
        Files.writeString(docs.resolve("lease.txt"), LEASE);
        Files.writeString(
                docs.resolve("handbook.md"),
                "# Support Handbook\n\n## Refunds\n\nCustomers may ask for a refund within thirty"
                        + " days of purchase. Refunds go back to the original card within five"
                        + " business days.\n\n## Password resets\n\nA customer who cannot log in is"
                        + " sent a reset link by e-mail. The link expires after one hour.\n");
        Files.writeString(
                docs.resolve("review.html"),
                "<html><head><title>Graphene review</title><script>var hidden = 1;</script>"
                        + "</head><body><h2>Band structure</h2><p>Pristine graphene has no band"
                        + " gap. Bilayer graphene under an electric field opens a small gap.</p>"
                        + "<h2>Outlook</h2><p>Graphene suits radio-frequency amplifiers better"
                        + " than digital logic.</p></body></html>");
        Files.write(
                docs.resolve("paper.pdf"),
                TestPdfs.builder()
                        .title("Lithium Electrolytes at Low Temperature")
                        .heading("Abstract")
                        .paragraph(
                                "We study how lithium electrolytes lose conductivity in the cold."
                                        + " Additives keep the electrolyte liquid below minus"
                                        + " twenty degrees.")
                        .heading("Methods")
                        .paragraph(
                                "Cells were cycled at five temperatures. Impedance was measured"
                                        + " after every tenth cycle.")
                        .paragraph("Figure 1: Conductivity against temperature for each additive.")
                        .heading("Results")
                        .paragraph(
                                "The fluorinated additive doubled the conductivity at minus twenty"
                                        + " degrees. Capacity retention improved by a third.")
                        .build());
        Files.writeString(
                docs.resolve("tickets.jsonl"),
                "{\"id\": \"t-1\", \"prompt\": \"<ticket channel=\\\"email\\\">My battery dies by"
                        + " noon since the update.</ticket>\"}\n"
                        + "{not json\n\n"
                        + "\"<ticket>I was charged twice for order 5512.</ticket>\"\n");
        Files.writeString(
                docs.resolve("triage.prompt"),
                "<task:triage><output_format:json><labels>refund, outage</labels>"
                        + "<ticket>Please refund my second payment.</ticket>");
        // unreadable: not UTF-8, a damaged PDF, and (named explicitly) a type analyze cannot read
        Files.write(docs.resolve("binary.txt"), new byte[] {(byte) 0xC3, 0x28, 0x00, (byte) 0xFF});
        Files.write(docs.resolve("broken.pdf"), "%PDF-1.7\nnot really".getBytes());
        Files.writeString(dir.resolve("notes.docx"), "PK fake");
        // long enough to be split into parts at the part size the runs use
        StringBuilder md = new StringBuilder("# A Long Paper\n\n");
        for (String section : List.of("Introduction", "Methods", "Results", "Discussion")) {
            md.append("## ").append(section).append("\n\n");
            for (int i = 0; i < 40; i++) {
                md.append(section)
                        .append(" finding ")
                        .append(i)
                        .append(" concerns electrolyte additive number ")
                        .append(i % 7)
                        .append(" at temperature ")
                        .append(i * 3)
                        .append(" degrees. ");
                if (i % 8 == 7) {
                    md.append("\n\n");
                }
            }
            md.append("\n\n");
        }
        paperText = md.toString();
        Files.writeString(docs.resolve("long-paper.md"), paperText);
    }

    private static Configuration conf() {
        Configuration conf = new Configuration();
        conf.set(AnalyzeOptions.ANALYZE_PART_CHARS, 4000);
        conf.set(ExecutorOptions.PRECOMPILE_FILE, ExecutorOptions.NO_PRECOMPILE);
        // runs are compared with runs before them: none answers from what another cached
        conf.set(
                ExecutorOptions.EMBEDDING_CACHE_SIZE,
                org.apache.flink.configuration.MemorySize.ZERO);
        return conf;
    }

    private static AnalysisSummary analyze(
            AnalysisTask task, Path out, Path costs, boolean resume, List<Path> inputs)
            throws Exception {
        return analyze(conf(), task, out, costs, resume, inputs);
    }

    private static AnalysisSummary analyze(
            Configuration conf,
            AnalysisTask task,
            Path out,
            Path costs,
            boolean resume,
            List<Path> inputs)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(SLOTS);
        return AnalysisRun.builder()
                .setInputs(inputs)
                .setTask(task)
                .setOut(out)
                .setCosts(costs)
                .setResume(resume)
                .setBaseDir(dir)
                .setProgress(new PrintStream(java.io.OutputStream.nullOutputStream()), false)
                .build()
                .run(env, conf);
    }

    private static List<JsonNode> rows(Path file) throws Exception {
        List<JsonNode> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.isBlank()) {
                rows.add(JSON.readTree(line));
            }
        }
        return rows;
    }

    private static Map<String, JsonNode> byUnit(List<JsonNode> rows) {
        Map<String, JsonNode> m = new HashMap<>();
        rows.forEach(r -> m.put(r.path("path").asText() + "#" + r.path("line").asInt(0), r));
        return m;
    }

    private static String squash(String s) {
        return s.replaceAll("\\s+", " ");
    }

    @Test
    @Order(1)
    void everyFormatGivesRowsComputedFromItsTextAndUnreadableFilesGiveErrorRows() throws Exception {
        Path out = dir.resolve("summaries.jsonl");
        Path costs = dir.resolve("costs.jsonl");
        AnalysisSummary summary =
                analyze(
                        AnalysisTask.builder("summarize").sentences(2).build(),
                        out,
                        costs,
                        false,
                        List.of(docs, dir.resolve("notes.docx")));

        Map<String, JsonNode> rows = byUnit(rows(out));
        assertThat(rows)
                .containsOnlyKeys(
                        "docs/lease.txt#0",
                        "docs/handbook.md#0",
                        "docs/review.html#0",
                        "docs/paper.pdf#0",
                        "docs/long-paper.md#0",
                        "docs/tickets.jsonl#1",
                        "docs/tickets.jsonl#2",
                        "docs/tickets.jsonl#4",
                        "docs/triage.prompt#0",
                        "docs/binary.txt#0",
                        "docs/broken.pdf#0",
                        "notes.docx#0");
        assertThat(summary.ok()).isEqualTo(8);
        assertThat(summary.errors()).isEqualTo(4);

        // summaries are sentences of the document itself, from its own sections
        Map<String, String> sources =
                Map.of(
                        "docs/lease.txt#0",
                        LEASE,
                        "docs/handbook.md#0",
                        Files.readString(docs.resolve("handbook.md")),
                        "docs/review.html#0",
                        Files.readString(docs.resolve("review.html")),
                        "docs/long-paper.md#0",
                        paperText);
        sources.forEach(
                (unit, text) -> {
                    JsonNode row = rows.get(unit);
                    assertThat(row.path("status").asText()).as(unit).isEqualTo("OK");
                    assertThat(row.path("result").path("sentences")).as(unit).hasSize(2);
                    row.path("result")
                            .path("sentences")
                            .forEach(
                                    s ->
                                            assertThat(squash(text))
                                                    .as(unit)
                                                    .contains(squash(s.path("text").asText())));
                });
        assertThat(rows.get("docs/handbook.md#0").path("title").asText())
                .isEqualTo("Support Handbook");
        assertThat(
                        rows.get("docs/review.html#0")
                                .path("result")
                                .path("sentences")
                                .findValuesAsText("scope"))
                .allMatch(s -> s.equals("section:band-structure") || s.equals("section:outlook"));
        assertThat(rows.get("docs/review.html#0").toString()).doesNotContain("hidden = 1");

        JsonNode pdf = rows.get("docs/paper.pdf#0");
        assertThat(pdf.path("title").asText()).isEqualTo("Lithium Electrolytes at Low Temperature");
        assertThat(pdf.path("result").path("sentences").findValuesAsText("scope"))
                .allMatch(
                        s ->
                                List.of("section:abstract", "section:methods", "section:results")
                                        .contains(s));
        Document pdfDoc =
                DocumentReaders.read(
                        DocumentFormat.PDF,
                        Files.readAllBytes(docs.resolve("paper.pdf")),
                        "paper.pdf");
        assertThat(pdfDoc.sections())
                .extracting(Document.Section::name)
                .containsExactly("abstract", "methods", "results");
        assertThat(pdfDoc.sections().get(1).text()).contains("<figure:1> Figure 1: Conductivity");
        pdf.path("result")
                .path("sentences")
                .forEach(
                        s ->
                                assertThat(
                                                squash(
                                                        pdfDoc.sections().stream()
                                                                .map(Document.Section::text)
                                                                .collect(Collectors.joining(" "))))
                                        .contains(squash(s.path("text").asText())));

        // the long paper ran as parts and was combined, with per-section picks
        JsonNode paper = rows.get("docs/long-paper.md#0");
        assertThat(paper.path("parts").asInt()).isGreaterThan(2);
        assertThat(paper.path("result").path("sections").fieldNames())
                .toIterable()
                .contains("section:introduction", "section:discussion");

        // prompts run as written: their own task, or the run's task around them
        assertThat(rows.get("docs/triage.prompt#0").path("task").asText()).isEqualTo("triage");
        assertThat(rows.get("docs/triage.prompt#0").path("result").path("label").asText())
                .isEqualTo("refund");
        assertThat(rows.get("docs/tickets.jsonl#1").path("requestId").asText()).isEqualTo("t-1");
        assertThat(
                        rows.get("docs/tickets.jsonl#4")
                                .path("result")
                                .path("sentences")
                                .path(0)
                                .path("text")
                                .asText())
                .isEqualTo("I was charged twice for order 5512.");

        assertThat(rows.get("docs/binary.txt#0").path("error").asText()).contains("not UTF-8");
        assertThat(rows.get("docs/broken.pdf#0").path("error").asText())
                .contains("not a readable PDF");
        assertThat(rows.get("docs/tickets.jsonl#2").path("error").asText()).contains("line 2");
        assertThat(rows.get("notes.docx#0").path("error").asText())
                .contains("unsupported file type");
        assertThat(rows.values())
                .filteredOn(r -> r.path("status").asText().equals("ERROR"))
                .allSatisfy(r -> assertThat(r.path("sha256").asText()).hasSize(64));

        // every row's cost is the sum of its cost records; ids never repeat
        List<JsonNode> records = rows(costs);
        assertThat(records).hasSize(summary.costRecords());
        assertThat(records.stream().map(r -> r.path("recordId").asText()).distinct())
                .hasSize(records.size());
        Map<String, Long> byRequest = new HashMap<>();
        for (JsonNode r : records) {
            String request = r.path("requestId").asText().replaceFirst("/part-\\d+-of-\\d+$", "");
            long money =
                    r.path("computeNanoUsd").asLong()
                            + r.path("memoryNanoUsd").asLong()
                            + r.path("pcieNanoUsd").asLong()
                            + r.path("deviceTimeNanoUsd").asLong();
            byRequest.merge(request, money, Long::sum);
        }
        for (JsonNode row : rows.values()) {
            if (row.path("status").asText().equals("OK")) {
                assertThat(byRequest.get(row.path("requestId").asText()))
                        .as(row.path("path").asText())
                        .isEqualTo(row.path("cost").path("nanoUsd").asLong());
            }
        }
        assertThat(summary.nanoUsd())
                .isEqualTo(byRequest.values().stream().mapToLong(Long::longValue).sum());
    }

    @Test
    @Order(4)
    void withoutATaskEachPromptRunsItsOwnAndQualityChoosesTheTier() throws Exception {
        Path prompts = Files.createDirectories(dir.resolve("own-tasks"));
        Files.writeString(
                prompts.resolve("ticket.prompt"),
                "<task:classify><output_format:json><labels>refund, outage</labels>"
                        + "<ticket>Please refund my second payment.</ticket>");
        Files.writeString(
                prompts.resolve("faq.jsonl"),
                JSON.writeValueAsString(
                                "<task:answer><output_format:json><question>When is rent"
                                        + " due?</question><document format=\"text\">Rent is"
                                        + " due on the first day of each month. Pets need"
                                        + " written consent.</document>")
                        + "\n");
        Map<String, Map<String, JsonNode>> rowsByQuality = new java.util.TreeMap<>();
        for (String quality : List.of("fast", "best")) {
            Path out = dir.resolve("own-tasks-" + quality + ".jsonl");
            AnalysisSummary summary =
                    analyze(
                            AnalysisTask.eachPromptsOwn(quality),
                            out,
                            null,
                            false,
                            List.of(prompts));
            assertThat(summary.allOk()).as(quality).isTrue();
            rowsByQuality.put(quality, byUnit(rows(out)));
        }
        Map<String, JsonNode> fast = rowsByQuality.get("fast");
        assertThat(fast).containsOnlyKeys("own-tasks/ticket.prompt#0", "own-tasks/faq.jsonl#1");
        JsonNode ticket = fast.get("own-tasks/ticket.prompt#0");
        assertThat(ticket.path("task").asText()).isEqualTo("classify");
        assertThat(ticket.path("result").path("label").asText()).isEqualTo("refund");
        assertThat(fast.get("own-tasks/faq.jsonl#1").path("task").asText()).isEqualTo("answer");
        // the floor is part of each plan, so of its graph id: every request asked for it
        for (String unit : fast.keySet()) {
            assertThat(rowsByQuality.get("best").get(unit).path("graphId"))
                    .as(unit)
                    .isNotEqualTo(fast.get(unit).path("graphId"));
        }
    }

    @Test
    @Order(5)
    void withExamplesTheTaskIsAnsweredByTheHeadTheCompilerFitOnThem() throws Exception {
        Path tickets = Files.createDirectories(dir.resolve("taught"));
        Files.writeString(
                tickets.resolve("refund.txt"),
                "The toaster broke on day one, I want my money back.");
        Files.writeString(
                tickets.resolve("outage.txt"),
                "Since this morning your website does not load at all.");
        Path examples = dir.resolve("routing.jsonl");
        StringBuilder lines = new StringBuilder();
        for (String[] e :
                List.of(
                        new String[] {"Please refund my order, it arrived damaged.", "refund"},
                        new String[] {"Cancel the purchase and return my payment.", "refund"},
                        new String[] {"I was charged twice, give the money back.", "refund"},
                        new String[] {"The service is down and every page times out.", "outage"},
                        new String[] {"Your servers do not respond since noon.", "outage"},
                        new String[] {"The app cannot reach the API at all today.", "outage"})) {
            lines.append(JSON.writeValueAsString(Map.of("text", e[0], "label", e[1]))).append('\n');
        }
        Files.writeString(examples, lines.toString());
        Configuration conf = conf();
        // what zerolayer analyze --task classify --examples routing.jsonl does
        io.zerolayer.analyze.TaskExamples.teach(conf, "classify", null, examples);
        Path out = dir.resolve("taught.jsonl");
        AnalysisSummary summary =
                analyze(
                        conf,
                        AnalysisTask.builder("classify").outputFormat("json").buildForContracts(),
                        out,
                        null,
                        false,
                        List.of(tickets));
        assertThat(summary.allOk()).as("%s", Files.readString(out)).isTrue();
        Map<String, JsonNode> rows = byUnit(rows(out));
        for (String label : List.of("refund", "outage")) {
            JsonNode result = rows.get("taught/" + label + ".txt#0").path("result");
            assertThat(result.path("head").asBoolean()).as(label).isTrue();
            assertThat(result.path("label").asText()).as(label).isEqualTo(label);
            assertThat(result.path("scores")).as(label).hasSize(2);
        }
    }

    @Test
    @Order(2)
    void resumeSkipsDoneFilesAndRunsChangedAndFailedOnesAgain() throws Exception {
        Path out = dir.resolve("answers.jsonl");
        AnalysisTask task =
                AnalysisTask.builder("answer").question("How much is the deposit?").build();
        List<Path> inputs =
                List.of(
                        docs.resolve("lease.txt"),
                        docs.resolve("handbook.md"),
                        docs.resolve("binary.txt"));
        AnalysisSummary first = analyze(task, out, null, false, inputs);
        assertThat(first.ok()).isEqualTo(2);
        assertThat(first.errors()).isEqualTo(1);
        assertThat(
                        byUnit(rows(out))
                                .get("docs/lease.txt#0")
                                .path("result")
                                .path("passage")
                                .asText())
                .contains("security deposit");

        AnalysisSummary again = analyze(task, out, null, true, inputs);
        assertThat(again.skipped()).isEqualTo(2);
        assertThat(again.documents()).isEqualTo(1); // only the unreadable file is tried again
        assertThat(rows(out)).hasSize(3);

        Files.writeString(
                docs.resolve("handbook.md"),
                "## Deposits\n\nNo deposit is taken for a support contract.\n");
        AnalysisSummary changed = analyze(task, out, null, true, inputs);
        assertThat(changed.skipped()).isEqualTo(1);
        assertThat(changed.ok()).isEqualTo(1);
        List<JsonNode> rows = rows(out);
        // the handbook's old row went with its old content; lease, new handbook and binary remain
        assertThat(rows).hasSize(3);
        assertThat(byUnit(rows).get("docs/handbook.md#0").path("result").path("passage").asText())
                .contains("No deposit is taken");
    }

    @Test
    @Order(3)
    void aDocumentGetsTheSameAnswerAndCostRecordsThroughAnalyzeAndTheStreamingJob()
            throws Exception {
        Path out = dir.resolve("stream-vs-batch.jsonl");
        Path costs = dir.resolve("stream-vs-batch-costs.jsonl");
        AnalysisTask task = AnalysisTask.builder("extract").fields("rent, pets").build();
        analyze(task, out, costs, false, List.of(docs.resolve("lease.txt")));
        JsonNode row = rows(out).get(0);
        Map<String, JsonNode> batchCosts = new HashMap<>();
        rows(costs).forEach(r -> batchCosts.put(r.path("recordId").asText(), r));

        Configuration conf = new Configuration();
        conf.set(KafkaOptions.BOOTSTRAP_SERVERS, KAFKA.bootstrapServers());
        conf.set(TenancyOptions.TENANTS_FILE, TestTenants.file().toString());
        conf.set(ExecutorOptions.CHECKPOINT_INTERVAL, Duration.ofMillis(500));
        conf.set(KafkaOptions.TRANSACTIONAL_ID_PREFIX, freshTopic("tx"));
        conf.set(KafkaOptions.GROUP_ID, freshTopic("group"));
        // both paths encode every sequence: hits on what analyze cached would change the records
        conf.set(
                ExecutorOptions.EMBEDDING_CACHE_SIZE,
                org.apache.flink.configuration.MemorySize.ZERO);
        KAFKA.createFreshJobTopics(conf, 1);
        conf.set(ExecutorOptions.PRECOMPILE_FILE, ExecutorOptions.NO_PRECOMPILE);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(SLOTS);
        StreamingJob.define(env, conf);
        JobClient job = env.executeAsync(StreamingJob.JOB_NAME);
        try {
            // the request analyze made of the file: same id, tenant and prompt
            Document lease =
                    DocumentReaders.read(
                            DocumentFormat.TEXT,
                            LEASE.getBytes(StandardCharsets.UTF_8),
                            "lease.txt");
            AnalysisRequest request =
                    AnalysisRequest.newBuilder()
                            .setRequestId(row.path("requestId").asText())
                            .setTenantId("batch")
                            .setPrompt(task.promptFor(lease, DocumentFormat.TEXT))
                            .setSubmittedAt(Instant.now())
                            .build();
            KAFKA.send(
                    conf.get(KafkaOptions.REQUESTS_TOPIC),
                    request.getRequestId().getBytes(StandardCharsets.UTF_8),
                    SingleObjectCodec.of(AnalysisRequest.class).encode(request));
            AnalysisResponse response =
                    SingleObjectCodec.of(AnalysisResponse.class)
                            .decode(
                                    KAFKA.read(
                                                    EmbeddedKafkaExtension.replies(conf),
                                                    1,
                                                    Duration.ofSeconds(120),
                                                    Duration.ZERO)
                                            .get(0)
                                            .value());
            assertThat(response.getGraphId()).isEqualTo(row.path("graphId").asText());
            assertThat(JSON.readTree(response.getOutput())).isEqualTo(row.path("result"));

            List<KernelCostRecord> streamed =
                    committedAfterCheckpoint(
                                    job, conf.get(KafkaOptions.COSTS_TOPIC), batchCosts.size())
                            .stream()
                            .map(
                                    r ->
                                            SingleObjectCodec.of(KernelCostRecord.class)
                                                    .decode(r.value()))
                            .toList();
            Set<String> ids = new HashSet<>();
            for (KernelCostRecord s : streamed) {
                ids.add(s.getRecordId());
                JsonNode b = batchCosts.get(s.getRecordId());
                assertThat(b).as(s.getNodeId()).isNotNull();
                // everything but the times (and the time-billed money) is the same
                assertThat(b.path("kernel").asText()).isEqualTo(s.getKernel());
                assertThat(b.path("graphId").asText()).isEqualTo(s.getGraphId());
                assertThat(b.path("tokens").isNull() ? null : b.path("tokens").asLong())
                        .isEqualTo(s.getTokens());
                assertThat(b.path("flops").isNull() ? null : b.path("flops").asLong())
                        .isEqualTo(s.getFlops());
                assertThat(b.path("memoryBytes").isNull() ? null : b.path("memoryBytes").asLong())
                        .isEqualTo(s.getMemoryBytes());
                assertThat(b.path("batchSize").asInt()).isEqualTo(s.getBatchSize());
                assertThat(b.path("computeNanoUsd").asLong()).isEqualTo(s.getComputeNanoUsd());
                assertThat(b.path("memoryNanoUsd").asLong()).isEqualTo(s.getMemoryNanoUsd());
            }
            assertThat(ids).isEqualTo(batchCosts.keySet());
        } finally {
            job.cancel().get();
        }
    }

    /**
     * The committed records of {@code topic}, at least {@code atLeast}, and any the job wrote
     * before a checkpoint that started once they came: an extra cost record is among them.
     */
    private static List<ConsumerRecord<byte[], byte[]>> committedAfterCheckpoint(
            JobClient job, String topic, int atLeast) throws Exception {
        KAFKA.read(topic, atLeast, Duration.ofSeconds(60), Duration.ZERO);
        JobCheckpoints.awaitAfterNow(FLINK, job.getJobID());
        return KAFKA.readToEnd(topic);
    }
}

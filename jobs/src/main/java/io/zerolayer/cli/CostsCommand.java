package io.zerolayer.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.kafka.CommittedRecords;
import io.zerolayer.schemas.KernelCostRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code zerolayer costs report}: kernel cost records as an HTML report with charts. */
@Command(
        name = "costs",
        mixinStandardHelpOptions = true,
        description = "Kernel cost records.",
        subcommands = {CostsCommand.Report.class})
final class CostsCommand implements Runnable {
    @Override
    public void run() {
        System.err.println("Usage: zerolayer costs report (--bootstrap-servers H:P | --file F)");
    }

    @Command(
            name = "report",
            mixinStandardHelpOptions = true,
            description =
                    "Write a self-contained HTML report: cost by tenant, by kernel, over time, top"
                            + " graphs.")
    static final class Report implements Callable<Integer> {
        static final class Source {
            @Option(
                    names = "--bootstrap-servers",
                    description = "Read the committed records of the costs topic.")
            String bootstrapServers;

            @Option(
                    names = "--file",
                    description = "Read records from a file, one JSON record a line.")
            Path file;
        }

        @ArgGroup(multiplicity = "1")
        Source source;

        @picocli.CommandLine.Mixin KafkaClientFile kafkaClient = new KafkaClientFile();

        @Option(
                names = "--topic",
                defaultValue = "zerolayer.kernel-costs",
                description = "Costs topic. Default: ${DEFAULT-VALUE}.")
        String topic;

        @Option(
                names = "--out",
                defaultValue = "costs-report.html",
                description = "HTML file to write. Default: ${DEFAULT-VALUE}.")
        Path out;

        @Override
        public Integer call() throws Exception {
            List<KernelCostRecord> records =
                    source.file != null
                            ? fromFile(source.file)
                            : fromTopic(
                                    kafkaClient.connection(source.bootstrapServers),
                                    topic,
                                    Duration.ofSeconds(30));
            String from =
                    source.file != null
                            ? source.file.toString()
                            : topic + " on " + source.bootstrapServers;
            Files.writeString(out, CostReport.html(records, from), StandardCharsets.UTF_8);
            long total =
                    records.stream()
                            .mapToLong(
                                    r ->
                                            orZero(r.getComputeNanoUsd())
                                                    + orZero(r.getMemoryNanoUsd())
                                                    + orZero(r.getPcieNanoUsd())
                                                    + r.getDeviceTimeNanoUsd())
                            .sum();
            System.out.printf(
                    Locale.ROOT,
                    "Wrote %s: %d records, $%.6f in all%n",
                    out,
                    records.size(),
                    total / 1e9);
            return 0;
        }
    }

    private static long orZero(Long v) {
        return v == null ? 0 : v;
    }

    /**
     * The committed records of {@code topic}, the latest per record id: a replay rewrites a record
     * under the same id, and is counted once.
     */
    static List<KernelCostRecord> fromTopic(
            io.zerolayer.operators.kafka.KafkaConnection kafka, String topic, Duration timeout) {
        return new ArrayList<>(
                CommittedRecords.readLatest(
                                kafka,
                                topic,
                                KernelCostRecord.class,
                                KernelCostRecord::getRecordId,
                                timeout)
                        .values());
    }

    /** Records from JSON lines (as Avro prints them: field names, plain values). */
    static List<KernelCostRecord> fromFile(Path file) throws java.io.IOException {
        ObjectMapper json = new ObjectMapper();
        List<KernelCostRecord> records = new ArrayList<>();
        int line = 0;
        for (String text : Files.readAllLines(file)) {
            line++;
            if (text.isBlank()) {
                continue;
            }
            JsonNode n;
            try {
                n = json.readTree(text);
            } catch (java.io.IOException e) {
                throw new IllegalArgumentException(
                        file + ":" + line + ": not a JSON record: " + e.getMessage());
            }
            records.add(
                    KernelCostRecord.newBuilder()
                            .setRecordId(n.path("recordId").asText())
                            .setRequestId(n.path("requestId").asText())
                            .setTenantId(n.path("tenantId").asText())
                            .setGraphId(n.path("graphId").asText())
                            .setNodeId(n.path("nodeId").asText())
                            .setKernel(n.path("kernel").asText())
                            .setDevice(n.path("device").asText("cpu"))
                            .setHardwareProfile(n.path("hardwareProfile").asText(""))
                            .setStartedAt(startedAt(n.path("startedAt")))
                            .setDurationNanos(n.path("durationNanos").asLong())
                            .setBatchSize(n.path("batchSize").asInt())
                            .setComputeNanoUsd(n.path("computeNanoUsd").asLong())
                            .setMemoryNanoUsd(n.path("memoryNanoUsd").asLong())
                            .setPcieNanoUsd(n.path("pcieNanoUsd").asLong())
                            .setDeviceTimeNanoUsd(n.path("deviceTimeNanoUsd").asLong())
                            .setPriceSheetVersion(n.path("priceSheetVersion").asText(""))
                            .build());
        }
        return records;
    }

    private static Instant startedAt(JsonNode n) {
        return n.isNumber() ? Instant.ofEpochMilli(n.asLong()) : Instant.parse(n.asText());
    }
}

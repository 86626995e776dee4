package io.zerolayer.cli;

import io.zerolayer.operators.warmup.GraphDescriptors;
import io.zerolayer.schemas.ExecutionGraph;
import io.zerolayer.schemas.GraphNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code zerolayer inspect GRAPH_ID}: reads the compacted graphs topic and prints what was compiled
 * for a graph id (or a unique prefix of one): its structure, identity, and each node with the
 * reason for its choices and the cost estimate for the hardware it was compiled for.
 */
@Command(
        name = "inspect",
        mixinStandardHelpOptions = true,
        description =
                "Print a compiled graph from the graphs topic: its shape, the structures seen"
                        + " run on it, nodes, choices and estimates.")
final class InspectCommand implements Callable<Integer> {
    @Option(
            names = "--bootstrap-servers",
            required = true,
            description = "Kafka bootstrap servers.")
    String bootstrapServers;

    @picocli.CommandLine.Mixin KafkaClientFile kafkaClient = new KafkaClientFile();

    @Option(
            names = "--graphs-topic",
            defaultValue = "zerolayer.graphs",
            description = "Default: ${DEFAULT-VALUE}.")
    String graphsTopic;

    @Option(
            names = "--format",
            defaultValue = "text",
            description = "text or json. Default: ${DEFAULT-VALUE}.")
    String format;

    @Parameters(
            paramLabel = "GRAPH_ID",
            description = "A graph id (x-execution-graph-id) or a prefix of at least 6 characters.")
    String graphId;

    @Override
    public Integer call() {
        if (graphId.length() < 6) {
            throw new IllegalArgumentException("Give at least 6 characters of the graph id");
        }
        Map<String, ExecutionGraph> latest = readAll();
        List<ExecutionGraph> matches =
                latest.values().stream().filter(g -> g.getGraphId().startsWith(graphId)).toList();
        if (matches.isEmpty()) {
            System.err.printf(
                    "No graph %s… among the %d on %s%n", graphId, latest.size(), graphsTopic);
            return 1;
        }
        if (matches.size() > 1) {
            System.err.println(
                    "The prefix " + graphId + " matches several graphs; give more characters:");
            matches.forEach(g -> System.err.println("  " + g.getGraphId() + "  " + g.getShape()));
            return 1;
        }
        ExecutionGraph g = matches.get(0);
        if (format.equals("json")) {
            System.out.println(g); // Avro's JSON rendering of the descriptor
            return 0;
        }
        System.out.println("graph " + g.getGraphId());
        System.out.printf(
                "  task        %s → %s, fidelity %s%n",
                g.getTask(), g.getOutputFormat(), g.getFidelity());
        System.out.println("  shape       " + (g.getShape().isEmpty() ? "–" : g.getShape()));
        if (g.getStructures().isEmpty()) {
            System.out.println("  structure   " + g.getSignature());
        } else {
            System.out.printf(
                    "  structures  %d seen (every structure of this shape runs on this graph)%n",
                    g.getStructures().size());
            g.getStructures().forEach(s -> System.out.println("    " + s));
        }
        System.out.printf(
                "  compiled    for %s with %s, compiler %s, contracts %s, at %s%n",
                g.getHardwareProfile(),
                g.getRuntimeVersion(),
                g.getCompilerVersion(),
                g.getContractVersion(),
                g.getCompiledAt());
        if (!g.getHardwareReport().isEmpty()) {
            System.out.println("  hardware    " + g.getHardwareReport());
        }
        g.getModelChecksums()
                .forEach((m, sum) -> System.out.printf("  model       %s sha256 %s%n", m, sum));
        System.out.println("  nodes");
        for (GraphNode n : g.getNodes()) {
            Map<String, String> p = new LinkedHashMap<>(n.getParams());
            String measuredP50 = p.remove("measured.p50-us");
            String measuredRuns = p.remove("measured.runs");
            Map<String, String> estimate = new LinkedHashMap<>();
            Map<String, String> reasons = new LinkedHashMap<>();
            String candidates = p.remove("tier.candidates");
            p.keySet()
                    .removeIf(
                            k -> {
                                if (k.startsWith("estimate.")) {
                                    estimate.put(k.substring("estimate.".length()), p.get(k));
                                    return true;
                                }
                                if (k.equals("reason")) {
                                    reasons.put(
                                            n.getKind().equals("encode") ? "tier" : n.getKind(),
                                            p.get(k));
                                    return true;
                                }
                                if (k.endsWith(".reason")) {
                                    reasons.put(
                                            k.substring(0, k.length() - ".reason".length()),
                                            p.get(k));
                                    return true;
                                }
                                return false;
                            });
            System.out.printf(
                    "    %-28s %s%s%n",
                    n.getNodeId(), n.getModel() == null ? "" : "[" + n.getModel() + "] ", p);
            reasons.forEach((choice, why) -> System.out.printf("      why %-9s %s%n", choice, why));
            if (candidates != null) {
                System.out.println("      tiers considered (quality for the task, estimate alone)");
                for (String line : candidates.split("\n")) {
                    System.out.println("        " + line);
                }
            }
            if (!estimate.isEmpty()) {
                if (estimate.containsKey("flops")) {
                    System.out.printf(
                            Locale.ROOT,
                            "      estimate  %s sequences × %s tokens (mean padded), %.2f GFLOP,"
                                    + " %.1f MB, %.2f ms (%s-bound on %s)%n",
                            estimate.get("sequences"),
                            estimate.get("seq-len"),
                            Long.parseLong(estimate.get("flops")) / 1e9,
                            Long.parseLong(estimate.get("bytes")) / 1e6,
                            Long.parseLong(estimate.get("micros")) / 1e3,
                            estimate.get("bound"),
                            estimate.get("hardware"));
                } else if (estimate.containsKey("tokens")) {
                    System.out.printf(
                            Locale.ROOT,
                            "      estimate  %s tokens, %.3f ms on the host%n",
                            estimate.get("tokens"),
                            Long.parseLong(estimate.get("micros")) / 1e3);
                } else { // a post-decode node's nominal estimate
                    System.out.printf(
                            Locale.ROOT,
                            "      estimate  %.3f ms on the host (nominal)%n",
                            Long.parseLong(estimate.get("micros")) / 1e3);
                }
            }
            if (measuredP50 != null) {
                long p50 = Long.parseLong(measuredP50);
                String ratio =
                        estimate.containsKey("micros") && p50 > 0
                                ? String.format(
                                        Locale.ROOT,
                                        "; estimate/measured %.2f",
                                        Long.parseLong(estimate.get("micros")) / (double) p50)
                                : "";
                System.out.printf(
                        Locale.ROOT,
                        "      measured  p50 %.2f ms over the last %s of %s runs in one slot%s%n",
                        p50 / 1e3,
                        Math.min(64, Long.parseLong(measuredRuns)),
                        measuredRuns,
                        ratio);
            }
        }
        return 0;
    }

    private Map<String, ExecutionGraph> readAll() {
        return new GraphDescriptors(kafkaClient.connection(bootstrapServers), graphsTopic)
                .readLatest(Duration.ofSeconds(30));
    }
}

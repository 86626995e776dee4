package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A graph's fallback path: what runs when its main path fails or overruns. Its nodes with the
 * encoder swapped for the best cheaper tier on the CPU and its optional nodes dropped.
 */
final class FallbackPaths {
    private final CostEstimator estimator;
    private final TierQuality quality;

    FallbackPaths(CostEstimator estimator, TierQuality quality) {
        this.estimator = estimator;
        this.quality = quality;
    }

    /**
     * The tier a plan on {@code main} falls back to, on the CPU: of the tiers measured for the task
     * that are cheaper than {@code main} by the CPU estimate, the best (the cheaper of two alike);
     * {@code main} itself where none is cheaper. A CUDA profile has no CPU rates to compare by: its
     * fallback is the cheapest shipped tier, MiniLM int8.
     */
    EncoderModel tier(EncoderModel main, java.util.function.ToDoubleFunction<EncoderModel> alone) {
        if (estimator.device().value().equals("cuda")) {
            return EncoderModel.MINILM_L6_V2_INT8;
        }
        double mainMicros = alone.applyAsDouble(main);
        EncoderModel best = null;
        double bestQuality = Double.NEGATIVE_INFINITY;
        double bestMicros = Double.POSITIVE_INFINITY;
        for (EncoderModel m : EncoderModel.values()) {
            if (m.equals(main)) {
                continue;
            }
            double micros = alone.applyAsDouble(m);
            if (micros >= mainMicros) {
                continue;
            }
            java.util.OptionalDouble q = quality.measured().apply(m);
            if (q.isEmpty()) {
                continue;
            }
            double value = q.getAsDouble();
            if (value > bestQuality || (value == bestQuality && micros < bestMicros)) {
                best = m;
                bestQuality = value;
                bestMicros = micros;
            }
        }
        return best != null ? best : main;
    }

    /**
     * The fallback path of a graph: its nodes with the encoder swapped for the next cheaper tier on
     * the CPU ({@link #tier}) and optional nodes dropped.
     */
    List<PlanNode> of(
            List<PlanNode> nodes,
            StructureWorkload workload,
            EncoderModel main,
            java.util.function.ToDoubleFunction<EncoderModel> alone) {
        List<PlanNode> fallback = new ArrayList<>();
        Map<String, List<String>> dropped = new java.util.HashMap<>();
        for (PlanNode node : nodes) {
            if (Boolean.parseBoolean(node.params().get("optional"))) {
                dropped.put(node.nodeId(), node.inputs());
                continue;
            }
            if (node.inputs().stream().anyMatch(dropped::containsKey)) {
                List<String> inputs = new ArrayList<>();
                node.inputs().forEach(i -> inputs.addAll(dropped.getOrDefault(i, List.of(i))));
                node =
                        new PlanNode(
                                node.nodeId(), node.kind(), node.model(), inputs, node.params());
            }
            if (node.kind().equals("decode") && "cublas".equals(node.params().get("similarity"))) {
                Map<String, String> decode = new LinkedHashMap<>(node.params());
                decode.put("similarity", "cpu");
                decode.put("similarity.reason", "fallback: everything on the CPU");
                node =
                        new PlanNode(
                                node.nodeId(), node.kind(), node.model(), node.inputs(), decode);
            }
            if (!node.kind().equals("encode")) {
                fallback.add(node);
                continue;
            }
            EncoderModel fallbackModel = tier(main, alone);
            Map<String, String> encode = new LinkedHashMap<>();
            encode.put("precision", fallbackModel.precision());
            java.util.OptionalDouble q = quality.measured().apply(fallbackModel);
            java.util.OptionalDouble mainQ = quality.measured().apply(main);
            encode.put(
                    "reason",
                    "fallback: "
                            + (fallbackModel.equals(main)
                                    ? "the same tier"
                                    : "the best cheaper tier")
                            + " on the CPU when the main path fails or overruns"
                            + (q.isPresent() && mainQ.isPresent()
                                    ? String.format(
                                            java.util.Locale.ROOT,
                                            " (quality %.3f against the main path's %.3f)",
                                            q.getAsDouble(),
                                            mainQ.getAsDouble())
                                    : ""));
            encode.put("device", "cpu");
            encode.put("batch-size", node.params().get("batch-size"));
            encode.put("padding", "longest");
            if (!estimator.device().value().equals("cuda")) { // a GPU profile knows no CPU rates
                encode.put("estimate.hardware", estimator.profile().id());
                encode.putAll(estimator.encode(fallbackModel, workload, 1).params());
            }
            fallback.add(
                    new PlanNode(
                            node.nodeId(), "encode", fallbackModel.id(), node.inputs(), encode));
        }
        return fallback;
    }
}

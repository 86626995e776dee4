package io.zerolayer.gpu.costmodel;

import io.zerolayer.gpu.EncoderModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * FLOPs and bytes of an encoder derived from its ONNX graph: every matrix product with a weight
 * initializer costs 2·K·N FLOPs per token; every matrix product of two activations (the attention
 * scores and their weighted sum) costs 2·seq·hidden per token; weights are read once per run.
 * Elementwise operators (adds, norms, GELU, softmax) are left out: they are a few percent of the
 * FLOPs. Read once per model and JVM.
 *
 * @param weightFlopsPerToken FLOPs per token of the products with weights
 * @param activationProducts matrix products between activations (2 per attention layer)
 * @param hidden the model width, from the first weight's input dimension
 * @param weightBytes bytes of all initializers
 */
public record OnnxCostModel(
        long weightFlopsPerToken, int activationProducts, long hidden, long weightBytes) {
    private static final Set<String> PRODUCTS =
            Set.of("MatMul", "MatMulInteger", "Gemm", "FusedMatMul", "QLinearMatMul");
    private static final Map<EncoderModel, OnnxCostModel> CACHE =
            Collections.synchronizedMap(new HashMap<>());

    public static OnnxCostModel of(EncoderModel model) {
        return CACHE.computeIfAbsent(
                model,
                m -> {
                    try (InputStream in = m.openWeights()) {
                        return from(OnnxGraph.read(in));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
    }

    public static OnnxCostModel from(OnnxGraph graph) {
        long weightFlops = 0;
        int activationProducts = 0;
        long hidden = 0;
        for (OnnxGraph.Node node : graph.nodes()) {
            if (!PRODUCTS.contains(node.opType())) {
                continue;
            }
            OnnxGraph.Initializer weight =
                    node.inputs().stream()
                            .map(graph.initializers()::get)
                            .filter(i -> i != null && i.dims().length == 2)
                            .findFirst()
                            .orElse(null);
            if (weight == null) {
                activationProducts++;
            } else {
                weightFlops += 2 * weight.dims()[0] * weight.dims()[1];
                if (hidden == 0) {
                    hidden = weight.dims()[0];
                }
            }
        }
        long bytes = 0;
        for (OnnxGraph.Initializer init : graph.initializers().values()) {
            bytes += init.elements() * bytesPer(init.dataType());
        }
        return new OnnxCostModel(weightFlops, activationProducts, hidden, bytes);
    }

    /** FLOPs of one forward pass over {@code batch × seqLen} tokens, padding included. */
    public long forwardFlops(int batch, int seqLen) {
        long perToken = weightFlopsPerToken + (long) activationProducts * 2 * seqLen * hidden;
        return (long) batch * seqLen * perToken;
    }

    /** Bytes of one element of a TensorProto.DataType. */
    static int bytesPer(int dataType) {
        return switch (dataType) {
            case 2, 3, 9 -> 1; // uint8, int8, bool
            case 4, 5, 10, 16 -> 2; // uint16, int16, float16, bfloat16
            case 1, 6, 12 -> 4; // float, int32, uint32
            case 7, 11, 13 -> 8; // int64, double, uint64
            default -> 4;
        };
    }
}

package io.zerolayer.gpu.quantization;

import static io.zerolayer.gpu.onnx.OnnxWriter.GRAPH_INITIALIZER;
import static io.zerolayer.gpu.onnx.OnnxWriter.GRAPH_NODE;
import static io.zerolayer.gpu.onnx.OnnxWriter.GRAPH_VALUE_INFO;
import static io.zerolayer.gpu.onnx.OnnxWriter.MODEL_GRAPH;
import static io.zerolayer.gpu.onnx.OnnxWriter.MODEL_OPSET_IMPORT;
import static io.zerolayer.gpu.onnx.OnnxWriter.NODE_INPUT;
import static io.zerolayer.gpu.onnx.OnnxWriter.NODE_OUTPUT;

import com.google.protobuf.CodedOutputStream;
import io.zerolayer.gpu.onnx.OnnxWriter;
import io.zerolayer.gpu.onnx.ProtoMessage;
import io.zerolayer.gpu.onnx.ProtoMessage.Field;
import io.zerolayer.gpu.quantization.DynamicQuantisers.Node;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a dynamically quantised ONNX model batch-invariant: each row (token) of an activation gets
 * its own int8 scale and zero point instead of one for the whole tensor.
 *
 * <p>{@code DynamicQuantizeLinear} takes the range of its whole input, {@code [batch, tokens,
 * width]}, so the sequences padded and batched beside a text, or the parts of a document split from
 * it, move that text's scale and so its answer. This rewrite replaces each {@code
 * DynamicQuantizeLinear} whose outputs only feed {@code MatMulInteger}s and the scale {@code Mul}s
 * after them by the same arithmetic over the last axis: {@code ReduceMax}/{@code ReduceMin} give
 * each row's scale and zero point for codes 0..{@value #CODE_MAX}, and ONNX Runtime's {@code
 * QuantizeLinear} (com.microsoft, per axis, on the activation seen as {@code [rows, width]}) codes
 * each row in one pass. A row's codes depend on that row alone. ONNX Runtime's {@code
 * MatMulInteger} takes only a scalar zero point for A, so each matmul runs with zero point 0 and
 * subtracts {@code zeroPoint[row] × Σ_k (B[k,n] − zpB[n])} afterwards, in int32: exactly a per-row
 * zero point, with the column sums computed here from the weights. The scale, now {@code [.., 1]},
 * broadcasts through the scale {@code Mul}s unchanged.
 *
 * <p>A {@code DynamicQuantizeLinear} used any other way is left as it is and counted in {@link
 * Result#kept()}: that model's int8 answers still depend on their batch.
 */
public final class PerRowQuantization {
    /** The rewritten model and how many {@code DynamicQuantizeLinear} nodes were or were not. */
    public record Result(byte[] model, int rewritten, int kept) {
        /** Whether every dynamic quantisation in the model is now per row. */
        public boolean batchInvariant() {
            return kept == 0;
        }
    }

    /**
     * The largest activation code: 7 bits, not 8. x86 CPUs without VNNI multiply uint8 codes by
     * int8 weights with {@code vpmaddubsw}, which saturates a pair of products at 32 767; with
     * codes up to 255 and weights of ±127 a pair can exceed it, so AVX2 machines and VNNI machines
     * gave different answers. A range of 127 codes keeps every pair below it (rounding the value
     * and the zero point apart can reach 128: 2 × 128 × 127 is still below), so the integer product
     * is exact on every CPU.
     */
    static final int CODE_MAX = 127;

    private static final String PREFIX = "zerolayer/per_row/";
    private static final String ZERO_F = PREFIX + "zero_f";
    private static final String CODE_MAX_F = PREFIX + "code_max_f";
    private static final String TINY_F = PREFIX + "tiny_f";
    private static final String ZERO_U8 = PREFIX + "zero_u8";
    private static final String LAST_AXIS = PREFIX + "last_axis";
    private static final String FLAT = PREFIX + "flat";

    private final DynamicQuantisers quantisers;

    /** From opset 18 on, ReduceMax and ReduceMin take their axes as an input. */
    private final boolean axesAsInput;

    private PerRowQuantization(DynamicQuantisers quantisers, long opset) {
        this.quantisers = quantisers;
        this.axesAsInput = opset >= 18;
    }

    /** Rewrites every {@code DynamicQuantizeLinear} of {@code onnx} that can be made per row. */
    public static Result rewrite(byte[] onnx) {
        ProtoMessage model = ProtoMessage.parse(onnx);
        Field graphField = null;
        for (Field f : model.fields) {
            if (f.number() == MODEL_GRAPH) {
                graphField = f;
            }
        }
        if (graphField == null) {
            throw new IllegalArgumentException("Not an ONNX model: it has no graph");
        }
        DynamicQuantisers quantisers = new DynamicQuantisers(model.message(graphField));
        if (quantisers.rewritable.isEmpty()) {
            return new Result(onnx, 0, quantisers.kept);
        }
        byte[] graph = new PerRowQuantization(quantisers, defaultOpset(model)).graph();
        Field replaced = graphField;
        byte[] out =
                ProtoMessage.write(
                        w -> {
                            for (Field f : model.fields) {
                                if (f == replaced) {
                                    w.writeByteArray(MODEL_GRAPH, graph);
                                } else {
                                    model.copy(f, w);
                                }
                            }
                            if (!importsMicrosoftOps(model)) {
                                w.writeByteArray(
                                        MODEL_OPSET_IMPORT, OnnxWriter.opset("com.microsoft", 1));
                            }
                        });
        return new Result(out, quantisers.rewritable.size(), quantisers.kept);
    }

    private static boolean importsMicrosoftOps(ProtoMessage model) {
        for (Field f : model.fields) {
            if (f.number() == MODEL_OPSET_IMPORT
                    && model.message(f).string(1).equals("com.microsoft")) {
                return true;
            }
        }
        return false;
    }

    /** The model's version of the default ONNX operator set. */
    private static long defaultOpset(ProtoMessage model) {
        for (Field f : model.fields) {
            if (f.number() == MODEL_OPSET_IMPORT) {
                ProtoMessage opset = model.message(f);
                String domain = opset.string(1); // OperatorSetIdProto.domain
                if (domain.isEmpty() || domain.equals("ai.onnx")) {
                    return opset.int64s(2).stream().findFirst().orElse(1L); // .version
                }
            }
        }
        return 1;
    }

    /** The graph with its rewritable quantisers and their matmuls replaced, in place. */
    private byte[] graph() {
        List<byte[]> constants = new ArrayList<>();
        constants.add(OnnxWriter.floatScalar(ZERO_F, 0f));
        constants.add(OnnxWriter.floatScalar(CODE_MAX_F, CODE_MAX));
        constants.add(OnnxWriter.floatScalar(TINY_F, Float.MIN_NORMAL));
        constants.add(OnnxWriter.int64Vector(FLAT, -1));
        constants.add(OnnxWriter.tensor(ZERO_U8, OnnxWriter.UINT8, new byte[] {0}));
        if (axesAsInput) {
            constants.add(OnnxWriter.int64Vector(LAST_AXIS, -1));
        }
        quantisers.columnSums.forEach(
                (matmul, sums) ->
                        constants.add(OnnxWriter.int32Vector(columnSumsName(matmul), sums)));
        ProtoMessage graph = quantisers.graph;
        return ProtoMessage.write(
                out -> {
                    for (byte[] c : constants) {
                        out.writeByteArray(GRAPH_INITIALIZER, c);
                    }
                    for (Field f : graph.fields) {
                        Node n = quantisers.nodeAt.get(f);
                        if (n != null && quantisers.isRewrittenQuantiser(n)) {
                            writePerRowQuantiser(n, out);
                        } else if (n != null && quantisers.isRewrittenMatMul(n)) {
                            writeMatMulWithRowZeroPoints(n, out);
                        } else if (f.number() != GRAPH_VALUE_INFO) {
                            // value_info is dropped: the shapes it records for the old
                            // per-tensor scales are wrong, and ONNX Runtime infers them itself
                            graph.copy(f, out);
                        }
                    }
                });
    }

    /** x → codes, scale {@code [.., 1]} and an int32 zero point, each row on its own. */
    private void writePerRowQuantiser(Node dql, CodedOutputStream out) throws IOException {
        String x = dql.inputs().get(0);
        String p = PREFIX + dql.outputs().get(0) + "/";
        String codes = dql.outputs().get(0);
        String scale = dql.outputs().get(1);
        // scale and zero point as DynamicQuantizeLinear's, per row and for 0..CODE_MAX: the range
        // always holds 0
        if (axesAsInput) {
            node(out, p + "max", "ReduceMax", List.of(x, LAST_AXIS), p + "max");
            node(out, p + "min", "ReduceMin", List.of(x, LAST_AXIS), p + "min");
        } else {
            byte[] lastAxis = OnnxWriter.intsAttribute("axes", -1);
            node(out, p + "max", "ReduceMax", List.of(x), p + "max", lastAxis);
            node(out, p + "min", "ReduceMin", List.of(x), p + "min", lastAxis);
        }
        node(out, p + "hi", "Max", List.of(p + "max", ZERO_F), p + "hi");
        node(out, p + "lo", "Min", List.of(p + "min", ZERO_F), p + "lo");
        node(out, p + "range", "Sub", List.of(p + "hi", p + "lo"), p + "range");
        node(out, p + "scale0", "Div", List.of(p + "range", CODE_MAX_F), p + "scale0");
        // an all-zero row: any positive scale codes it as its zero point, 0
        node(out, p + "scale", "Max", List.of(p + "scale0", TINY_F), scale);
        node(out, p + "neglo", "Neg", List.of(p + "lo"), p + "neglo");
        node(out, p + "zp0", "Div", List.of(p + "neglo", scale), p + "zp0");
        node(out, p + "zp1", "Clip", List.of(p + "zp0", ZERO_F, CODE_MAX_F), p + "zp1");
        node(out, p + "zp", "Round", List.of(p + "zp1"), p + "zp");
        byte[] toUint8 = OnnxWriter.intAttribute("to", OnnxWriter.UINT8);
        // codes: round(x / scale) + zero point, saturated to uint8, in one pass per axis 0 of
        // [rows, width] (ONNX's own QuantizeLinear takes an axis only from opset 13, these models
        // may be older); the element-wise ops instead took five passes and a third more time
        String rows = p + "rows_shape";
        out.writeByteArray(
                GRAPH_INITIALIZER, OnnxWriter.int64Vector(rows, -1, quantisers.width.get(dql)));
        node(out, p + "x_shape", "Shape", List.of(x), p + "x_shape");
        node(out, p + "x_rows", "Reshape", List.of(x, rows), p + "x_rows");
        node(out, p + "scale_rows", "Reshape", List.of(scale, FLAT), p + "scale_rows");
        node(out, p + "zp_u8", "Cast", List.of(p + "zp"), p + "zp_u8", toUint8);
        node(out, p + "zp_rows", "Reshape", List.of(p + "zp_u8", FLAT), p + "zp_rows");
        out.writeByteArray(
                GRAPH_NODE,
                OnnxWriter.node(
                        p + "quantize",
                        "QuantizeLinear",
                        "com.microsoft",
                        List.of(p + "x_rows", p + "scale_rows", p + "zp_rows"),
                        List.of(p + "codes_rows"),
                        OnnxWriter.intAttribute("axis", 0)));
        node(out, p + "codes", "Reshape", List.of(p + "codes_rows", p + "x_shape"), codes);
        byte[] toInt32 = OnnxWriter.intAttribute("to", OnnxWriter.INT32);
        node(out, p + "zp_i32", "Cast", List.of(p + "zp"), rowZeroPoint(dql), toInt32);
    }

    /** The matmul at zero point 0, less {@code zp[row] × colsum[n]}. */
    private void writeMatMulWithRowZeroPoints(Node m, CodedOutputStream out) throws IOException {
        Node dql = quantisers.rewritable.get(m.inputs().get(0));
        String y = m.outputs().get(0);
        String p = PREFIX + y + "/";
        List<String> inputs = new ArrayList<>(m.inputs());
        inputs.set(2, ZERO_U8);
        String atZeroPoint0 = p + "at_zero_point_0";
        ProtoMessage node = m.message();
        out.writeByteArray(
                GRAPH_NODE,
                ProtoMessage.write(
                        w -> {
                            for (String in : inputs) {
                                w.writeString(NODE_INPUT, in);
                            }
                            w.writeString(NODE_OUTPUT, atZeroPoint0);
                            for (Field f : node.fields) {
                                if (f.number() != NODE_INPUT && f.number() != NODE_OUTPUT) {
                                    node.copy(f, w); // name, op type, domain, attributes
                                }
                            }
                        }));
        String correction = p + "correction";
        node(out, correction, "Mul", List.of(rowZeroPoint(dql), columnSumsName(m)), correction);
        node(out, p + "corrected", "Sub", List.of(atZeroPoint0, correction), y);
    }

    private static String columnSumsName(Node matmul) {
        return PREFIX + matmul.outputs().get(0) + "/column_sums";
    }

    private static String rowZeroPoint(Node dql) {
        return PREFIX + dql.outputs().get(0) + "/zero_point_i32";
    }

    private static void node(
            CodedOutputStream out,
            String name,
            String opType,
            List<String> inputs,
            String output,
            byte[]... attributes)
            throws IOException {
        out.writeByteArray(
                GRAPH_NODE, OnnxWriter.node(name, opType, inputs, List.of(output), attributes));
    }
}

package io.zerolayer.gpu.quantization;

import com.google.protobuf.CodedOutputStream;
import io.zerolayer.gpu.quantization.ProtoMessage.Field;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Makes a dynamically quantised ONNX model batch-invariant: each row (token) of an activation gets
 * its own int8 scale and zero point instead of one for the whole tensor.
 *
 * <p>{@code DynamicQuantizeLinear} takes the range of its whole input, {@code [batch, tokens,
 * width]}, so the sequences padded and batched beside a text, or the parts of a document split from
 * it, move that text's scale and so its answer. This rewrite replaces each {@code
 * DynamicQuantizeLinear} whose outputs only feed {@code MatMulInteger}s and the scale {@code Mul}s
 * after them by the same arithmetic over the last axis ({@code ReduceMax}/{@code ReduceMin} →
 * scale, zero point, {@code Round}, {@code Clip}, {@code Cast}), with codes 0..{@value #CODE_MAX},
 * so a row's codes depend on that row alone. ONNX Runtime's {@code MatMulInteger} takes only a
 * scalar zero point for A, so each matmul runs with zero point 0 and subtracts {@code
 * zeroPoint[row] × Σ_k (B[k,n] − zpB[n])} afterwards, in int32: exactly a per-row zero point, with
 * the column sums computed here from the weights. The scale, now {@code [.., 1]}, broadcasts
 * through the scale {@code Mul}s unchanged.
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

    // onnx.proto field numbers
    private static final int MODEL_GRAPH = 7;
    private static final int MODEL_OPSET_IMPORT = 8;
    private static final int GRAPH_NODE = 1;
    private static final int GRAPH_INITIALIZER = 5;
    private static final int GRAPH_VALUE_INFO = 13;
    private static final int NODE_INPUT = 1;
    private static final int NODE_OUTPUT = 2;
    private static final int NODE_NAME = 3;
    private static final int NODE_OP_TYPE = 4;
    private static final int NODE_ATTRIBUTE = 5;
    private static final int NODE_DOMAIN = 7;
    private static final int TENSOR_DIMS = 1;
    private static final int TENSOR_DATA_TYPE = 2;
    private static final int TENSOR_INT32_DATA = 5;
    private static final int TENSOR_NAME = 8;
    private static final int TENSOR_RAW_DATA = 9;
    private static final int ATTR_NAME = 1;
    private static final int ATTR_I = 3;
    private static final int ATTR_INTS = 8;
    private static final int ATTR_TYPE = 20;
    private static final int ATTR_TYPE_INT = 2;
    private static final int ATTR_TYPE_INTS = 7;
    // TensorProto.DataType
    private static final int FLOAT = 1;
    private static final int UINT8 = 2;
    private static final int INT8 = 3;
    private static final int INT32 = 6;

    /**
     * The largest activation code: 7 bits, not 8. x86 CPUs without VNNI multiply uint8 codes by
     * int8 weights with {@code vpmaddubsw}, which saturates a pair of products at 32 767; with
     * codes up to 255 and weights of ±127 a pair can exceed it, so AVX2 machines and VNNI machines
     * gave different answers. Codes up to 127 keep every pair below it, and the integer product is
     * then exact on every CPU.
     */
    static final int CODE_MAX = 127;

    private static final String PREFIX = "zerolayer/per_row/";
    private static final String ZERO_F = PREFIX + "zero_f";
    private static final String QMAX_F = PREFIX + "qmax_f";
    private static final String TINY_F = PREFIX + "tiny_f";
    private static final String ZERO_U8 = PREFIX + "zero_u8";
    private static final String LAST_AXIS = PREFIX + "last_axis";
    private static final int INT64 = 7;

    private PerRowQuantization() {}

    /** A node as read: its span in the graph, type and wiring. */
    private record Node(
            Field field,
            ProtoMessage message,
            String name,
            String opType,
            List<String> inputs,
            List<String> outputs) {}

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
        ProtoMessage graph = model.message(graphField);
        GraphRewrite rewrite = new GraphRewrite(graph, defaultOpset(model));
        if (rewrite.rewritable.isEmpty()) {
            return new Result(onnx, 0, rewrite.kept);
        }
        byte[] newGraph = rewrite.write();
        final Field replaced = graphField;
        byte[] out =
                ProtoMessage.write(
                        w -> {
                            for (Field f : model.fields) {
                                if (f == replaced) {
                                    w.writeByteArray(MODEL_GRAPH, newGraph);
                                } else {
                                    model.copy(f, w);
                                }
                            }
                        });
        return new Result(out, rewrite.rewritable.size(), rewrite.kept);
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

    /** One graph's analysis and rewrite. */
    private static final class GraphRewrite {
        private final ProtoMessage graph;
        private final List<Node> nodes = new ArrayList<>();
        private final Map<String, Field> initializers = new HashMap<>();

        /** Outputs of rewritable DynamicQuantizeLinear nodes: quantized codes → that node. */
        private final Map<String, Node> rewritable = new HashMap<>();

        private final Map<Field, Node> nodeAt = new java.util.IdentityHashMap<>();

        /** From opset 18 on, ReduceMax and ReduceMin take their axes as an input. */
        private final boolean axesAsInput;

        private int kept;
        private final List<byte[]> newInitializers = new ArrayList<>();

        GraphRewrite(ProtoMessage graph, long opset) {
            this.graph = graph;
            this.axesAsInput = opset >= 18;
            Map<String, List<Node>> consumers = new HashMap<>();
            for (Field f : graph.fields) {
                if (f.number() == GRAPH_NODE) {
                    ProtoMessage m = graph.message(f);
                    Node n =
                            new Node(
                                    f,
                                    m,
                                    m.string(NODE_NAME),
                                    m.string(NODE_OP_TYPE),
                                    m.strings(NODE_INPUT),
                                    m.strings(NODE_OUTPUT));
                    nodes.add(n);
                    nodeAt.put(f, n);
                    for (String in : n.inputs()) {
                        consumers.computeIfAbsent(in, k -> new ArrayList<>()).add(n);
                    }
                } else if (f.number() == GRAPH_INITIALIZER) {
                    initializers.put(graph.message(f).string(TENSOR_NAME), f);
                }
            }
            for (Node n : nodes) {
                if (isDefaultDomain(n) && n.opType().equals("DynamicQuantizeLinear")) {
                    if (canRewrite(n, consumers)) {
                        rewritable.put(n.outputs().get(0), n);
                    } else {
                        kept++;
                    }
                }
            }
        }

        private static boolean isDefaultDomain(Node n) {
            String domain = n.message().string(NODE_DOMAIN);
            return domain.isEmpty() || domain.equals("ai.onnx");
        }

        /**
         * The codes feed only {@code MatMulInteger}s as A with this node's zero point and constant
         * 2-D weights; the zero point feeds only those; the scale only {@code Mul}s.
         */
        private boolean canRewrite(Node dql, Map<String, List<Node>> consumers) {
            if (dql.outputs().size() != 3) {
                return false;
            }
            String codes = dql.outputs().get(0);
            String scale = dql.outputs().get(1);
            String zeroPoint = dql.outputs().get(2);
            List<Node> matmuls = consumers.getOrDefault(codes, List.of());
            if (matmuls.isEmpty()) {
                return false;
            }
            for (Node m : matmuls) {
                List<String> in = m.inputs();
                if (!m.opType().equals("MatMulInteger")
                        || !isDefaultDomain(m)
                        || in.size() < 3
                        || !in.get(0).equals(codes)
                        || !in.get(2).equals(zeroPoint)
                        || in.subList(1, in.size()).contains(codes)
                        || columnSums(m) == null) {
                    return false;
                }
            }
            for (Node z : consumers.getOrDefault(zeroPoint, List.of())) {
                if (!matmuls.contains(z) || z.inputs().indexOf(zeroPoint) != 2) {
                    return false;
                }
            }
            for (Node s : consumers.getOrDefault(scale, List.of())) {
                if (!s.opType().equals("Mul") || !isDefaultDomain(s)) {
                    return false;
                }
            }
            return !graphOutputs().contains(scale) && !graphOutputs().contains(zeroPoint);
        }

        private Set<String> graphOutputs() {
            Set<String> out = new HashSet<>();
            for (Field f : graph.fields) {
                if (f.number() == 12) { // GraphProto.output: ValueInfoProto, name is field 1
                    out.add(graph.message(f).string(1));
                }
            }
            return out;
        }

        /**
         * {@code Σ_k (B[k,n] − zpB[n])} for each column n of the matmul's constant 8-bit weights,
         * or {@code null} where the weights or their zero point are not constants of that form.
         */
        private int[] columnSums(Node matmul) {
            Tensor b = tensor(matmul.inputs().get(1));
            if (b == null || b.dims().length != 2) {
                return null;
            }
            int k = (int) b.dims()[0];
            int n = (int) b.dims()[1];
            int[] zp = new int[n];
            if (matmul.inputs().size() > 3 && !matmul.inputs().get(3).isEmpty()) {
                Tensor z = tensor(matmul.inputs().get(3));
                if (z == null || z.dataType() != b.dataType()) {
                    return null;
                }
                if (z.values().length == 1) {
                    java.util.Arrays.fill(zp, z.values()[0]);
                } else if (z.values().length == n) {
                    zp = z.values();
                } else {
                    return null;
                }
            }
            int[] sums = new int[n];
            int[] w = b.values();
            for (int row = 0; row < k; row++) {
                for (int col = 0; col < n; col++) {
                    sums[col] += w[row * n + col] - zp[col];
                }
            }
            return sums;
        }

        private record Tensor(long[] dims, int dataType, int[] values) {}

        private final Map<String, Tensor> tensors = new HashMap<>();

        /** An 8-bit initializer's shape and values, or {@code null}. */
        private Tensor tensor(String name) {
            if (tensors.containsKey(name)) {
                return tensors.get(name);
            }
            Tensor t = null;
            Field f = initializers.get(name);
            if (f != null) {
                ProtoMessage m = graph.message(f);
                long[] dims = m.int64s(TENSOR_DIMS).stream().mapToLong(Long::longValue).toArray();
                int type = m.int64s(TENSOR_DATA_TYPE).stream().findFirst().orElse(0L).intValue();
                long count = 1;
                for (long d : dims) {
                    count *= d;
                }
                int[] values = null;
                if (type == INT8 || type == UINT8) {
                    for (Field v : m.fields) {
                        if (v.number() == TENSOR_RAW_DATA
                                && v.valueEnd() - v.valueStart() == count) {
                            values = new int[(int) count];
                            for (int i = 0; i < count; i++) {
                                byte x = m.bytes[v.valueStart() + i];
                                values[i] = type == INT8 ? x : x & 0xff;
                            }
                        }
                    }
                    if (values == null) {
                        List<Long> ints = m.int64s(TENSOR_INT32_DATA);
                        if (ints.size() == count) {
                            values = ints.stream().mapToInt(Long::intValue).toArray();
                        }
                    }
                }
                if (values != null) {
                    t = new Tensor(dims, type, values);
                }
            }
            tensors.put(name, t);
            return t;
        }

        byte[] write() {
            newInitializers.add(floatScalar(ZERO_F, 0f));
            newInitializers.add(floatScalar(QMAX_F, CODE_MAX));
            newInitializers.add(floatScalar(TINY_F, Float.MIN_NORMAL));
            newInitializers.add(
                    ProtoMessage.write(
                            w -> {
                                w.writeInt32(TENSOR_DATA_TYPE, UINT8);
                                w.writeString(TENSOR_NAME, ZERO_U8);
                                w.writeByteArray(TENSOR_RAW_DATA, new byte[] {0});
                            }));
            if (axesAsInput) {
                newInitializers.add(int64Vector(LAST_AXIS, -1));
            }
            for (Node n : nodes) {
                if (n.opType().equals("MatMulInteger")
                        && rewritable.containsKey(n.inputs().get(0))) {
                    newInitializers.add(int32Vector(columnSumsName(n), columnSums(n)));
                }
            }
            Set<Node> rewrittenQuantizers = new HashSet<>(rewritable.values());
            return ProtoMessage.write(
                    out -> {
                        boolean initializersWritten = false;
                        for (Field f : graph.fields) {
                            if (f.number() == GRAPH_NODE) {
                                Node n = nodeAt.get(f);
                                if (rewrittenQuantizers.contains(n)) {
                                    writePerRowQuantizer(n, out);
                                } else if (n.opType().equals("MatMulInteger")
                                        && rewritable.containsKey(n.inputs().get(0))) {
                                    writeMatMulWithRowZeroPoints(n, out);
                                } else {
                                    graph.copy(f, out);
                                }
                            } else if (f.number() == GRAPH_VALUE_INFO) {
                                // shapes recorded for the old per-tensor scales are now wrong;
                                // ONNX Runtime infers every intermediate shape itself
                            } else {
                                if (f.number() == GRAPH_INITIALIZER && !initializersWritten) {
                                    for (byte[] init : newInitializers) {
                                        out.writeByteArray(GRAPH_INITIALIZER, init);
                                    }
                                    initializersWritten = true;
                                }
                                graph.copy(f, out);
                            }
                        }
                        if (!initializersWritten) {
                            for (byte[] init : newInitializers) {
                                out.writeByteArray(GRAPH_INITIALIZER, init);
                            }
                        }
                    });
        }

        /** x → codes, scale {@code [.., 1]} and an int32 zero point, each row on its own. */
        private void writePerRowQuantizer(Node dql, CodedOutputStream out) throws IOException {
            String x = dql.inputs().get(0);
            String p = PREFIX + dql.outputs().get(0) + "/";
            String codes = dql.outputs().get(0);
            String scale = dql.outputs().get(1);
            String zeroPoint = rowZeroPoint(dql);
            // as DynamicQuantizeLinear, per row and over 0..CODE_MAX: the range always holds 0
            if (axesAsInput) {
                node(out, p + "max", "ReduceMax", List.of(x, LAST_AXIS), p + "max");
                node(out, p + "min", "ReduceMin", List.of(x, LAST_AXIS), p + "min");
            } else {
                node(out, p + "max", "ReduceMax", List.of(x), p + "max", lastAxis());
                node(out, p + "min", "ReduceMin", List.of(x), p + "min", lastAxis());
            }
            node(out, p + "hi", "Max", List.of(p + "max", ZERO_F), p + "hi");
            node(out, p + "lo", "Min", List.of(p + "min", ZERO_F), p + "lo");
            node(out, p + "range", "Sub", List.of(p + "hi", p + "lo"), p + "range");
            node(out, p + "scale0", "Div", List.of(p + "range", QMAX_F), p + "scale0");
            // an all-zero row: any positive scale codes it as its zero point, 0
            node(out, p + "scale", "Max", List.of(p + "scale0", TINY_F), scale);
            node(out, p + "neglo", "Neg", List.of(p + "lo"), p + "neglo");
            node(out, p + "zp0", "Div", List.of(p + "neglo", scale), p + "zp0");
            node(out, p + "zp1", "Clip", List.of(p + "zp0", ZERO_F, QMAX_F), p + "zp1");
            node(out, p + "zp", "Round", List.of(p + "zp1"), p + "zp");
            node(out, p + "xs", "Div", List.of(x, scale), p + "xs");
            node(out, p + "xr", "Round", List.of(p + "xs"), p + "xr");
            node(out, p + "xz", "Add", List.of(p + "xr", p + "zp"), p + "xz");
            node(out, p + "xc", "Clip", List.of(p + "xz", ZERO_F, QMAX_F), p + "xc");
            node(out, p + "codes", "Cast", List.of(p + "xc"), codes, castTo(UINT8));
            node(out, p + "zp_i32", "Cast", List.of(p + "zp"), zeroPoint, castTo(INT32));
        }

        private static String columnSumsName(Node matmul) {
            return PREFIX + matmul.outputs().get(0) + "/column_sums";
        }

        private static String rowZeroPoint(Node dql) {
            return PREFIX + dql.outputs().get(0) + "/zero_point_i32";
        }

        /** The matmul at zero point 0, less {@code zp[row] × colsum[n]}. */
        private void writeMatMulWithRowZeroPoints(Node m, CodedOutputStream out)
                throws IOException {
            Node dql = rewritable.get(m.inputs().get(0));
            String y = m.outputs().get(0);
            String p = PREFIX + y + "/";
            List<String> inputs = new ArrayList<>(m.inputs());
            inputs.set(2, ZERO_U8);
            String raw = p + "at_zero_point_0";
            ProtoMessage node = m.message();
            out.writeByteArray(
                    GRAPH_NODE,
                    ProtoMessage.write(
                            w -> {
                                for (String in : inputs) {
                                    w.writeString(NODE_INPUT, in);
                                }
                                w.writeString(NODE_OUTPUT, raw);
                                for (Field f : node.fields) {
                                    if (f.number() != NODE_INPUT && f.number() != NODE_OUTPUT) {
                                        node.copy(f, w);
                                    }
                                }
                            }));
            node(
                    out,
                    p + "correction",
                    "Mul",
                    List.of(rowZeroPoint(dql), columnSumsName(m)),
                    p + "correction");
            node(out, p + "corrected", "Sub", List.of(raw, p + "correction"), y);
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
                    GRAPH_NODE,
                    ProtoMessage.write(
                            w -> {
                                for (String in : inputs) {
                                    w.writeString(NODE_INPUT, in);
                                }
                                w.writeString(NODE_OUTPUT, output);
                                w.writeString(NODE_NAME, name);
                                w.writeString(NODE_OP_TYPE, opType);
                                for (byte[] a : attributes) {
                                    w.writeByteArray(NODE_ATTRIBUTE, a);
                                }
                            }));
        }

        private static byte[] lastAxis() {
            return ProtoMessage.write(
                    w -> {
                        w.writeString(ATTR_NAME, "axes");
                        w.writeInt64(ATTR_INTS, -1);
                        w.writeInt32(ATTR_TYPE, ATTR_TYPE_INTS);
                    });
        }

        private static byte[] castTo(int dataType) {
            return ProtoMessage.write(
                    w -> {
                        w.writeString(ATTR_NAME, "to");
                        w.writeInt64(ATTR_I, dataType);
                        w.writeInt32(ATTR_TYPE, ATTR_TYPE_INT);
                    });
        }

        private static byte[] floatScalar(String name, float value) {
            byte[] raw =
                    ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(value).array();
            return ProtoMessage.write(
                    w -> {
                        w.writeInt32(TENSOR_DATA_TYPE, FLOAT);
                        w.writeString(TENSOR_NAME, name);
                        w.writeByteArray(TENSOR_RAW_DATA, raw);
                    });
        }

        private static byte[] int64Vector(String name, long value) {
            byte[] raw =
                    ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
            return ProtoMessage.write(
                    w -> {
                        w.writeInt64(TENSOR_DIMS, 1);
                        w.writeInt32(TENSOR_DATA_TYPE, INT64);
                        w.writeString(TENSOR_NAME, name);
                        w.writeByteArray(TENSOR_RAW_DATA, raw);
                    });
        }

        private static byte[] int32Vector(String name, int[] values) {
            ByteBuffer raw = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
            for (int v : values) {
                raw.putInt(v);
            }
            return ProtoMessage.write(
                    w -> {
                        w.writeInt64(TENSOR_DIMS, values.length);
                        w.writeInt32(TENSOR_DATA_TYPE, INT32);
                        w.writeString(TENSOR_NAME, name);
                        w.writeByteArray(TENSOR_RAW_DATA, raw.array());
                    });
        }
    }
}

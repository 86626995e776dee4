package io.zerolayer.gpu.quantization;

import static io.zerolayer.gpu.onnx.OnnxWriter.GRAPH_INITIALIZER;
import static io.zerolayer.gpu.onnx.OnnxWriter.GRAPH_NODE;
import static io.zerolayer.gpu.onnx.OnnxWriter.GRAPH_OUTPUT;
import static io.zerolayer.gpu.onnx.OnnxWriter.INT8;
import static io.zerolayer.gpu.onnx.OnnxWriter.NODE_DOMAIN;
import static io.zerolayer.gpu.onnx.OnnxWriter.NODE_INPUT;
import static io.zerolayer.gpu.onnx.OnnxWriter.NODE_NAME;
import static io.zerolayer.gpu.onnx.OnnxWriter.NODE_OP_TYPE;
import static io.zerolayer.gpu.onnx.OnnxWriter.NODE_OUTPUT;
import static io.zerolayer.gpu.onnx.OnnxWriter.TENSOR_DATA_TYPE;
import static io.zerolayer.gpu.onnx.OnnxWriter.TENSOR_DIMS;
import static io.zerolayer.gpu.onnx.OnnxWriter.TENSOR_INT32_DATA;
import static io.zerolayer.gpu.onnx.OnnxWriter.TENSOR_NAME;
import static io.zerolayer.gpu.onnx.OnnxWriter.TENSOR_RAW_DATA;
import static io.zerolayer.gpu.onnx.OnnxWriter.UINT8;

import io.zerolayer.gpu.onnx.ProtoMessage;
import io.zerolayer.gpu.onnx.ProtoMessage.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The dynamic activation quantisers of one ONNX graph, and which of them {@link PerRowQuantization}
 * can make per row: a {@code DynamicQuantizeLinear} whose codes feed only {@code MatMulInteger}s as
 * A, with its own zero point and constant 2-D 8-bit weights, whose zero point feeds only those, and
 * whose scale feeds only {@code Mul}s. For each such matmul it also holds the column sums of its
 * weights less their zero points, which the per-row zero point needs.
 */
final class DynamicQuantisers {
    /** A node as read: its field in the graph, its message and wiring. */
    record Node(
            Field field,
            ProtoMessage message,
            String name,
            String opType,
            List<String> inputs,
            List<String> outputs) {

        boolean isDefaultDomain() {
            String domain = message.string(NODE_DOMAIN);
            return domain.isEmpty() || domain.equals("ai.onnx");
        }

        boolean is(String op) {
            return opType.equals(op) && isDefaultDomain();
        }
    }

    private record Tensor(long[] dims, int dataType, int[] values) {}

    final ProtoMessage graph;
    final Map<Field, Node> nodeAt = new IdentityHashMap<>();

    /** Rewritable quantisers by the name of their codes. */
    final Map<String, Node> rewritable = new HashMap<>();

    /** {@code Σ_k (B[k,n] − zpB[n])} of each matmul fed by a rewritable quantiser. */
    final Map<Node, int[]> columnSums = new IdentityHashMap<>();

    /** The width (last dimension) of each rewritable quantiser's input: its matmuls' K. */
    final Map<Node, Long> width = new IdentityHashMap<>();

    /** Quantisers that feed anything else, left as they are. */
    final int kept;

    private final Map<String, Field> initializers = new HashMap<>();

    /** K of each matmul's constant weights [K, N]. */
    private final Map<Node, Long> weightRows = new IdentityHashMap<>();

    DynamicQuantisers(ProtoMessage graph) {
        this.graph = graph;
        Map<String, List<Node>> consumers = new HashMap<>();
        Set<String> graphOutputs = new HashSet<>();
        List<Node> quantisers = new ArrayList<>();
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
                nodeAt.put(f, n);
                for (String in : n.inputs()) {
                    consumers.computeIfAbsent(in, k -> new ArrayList<>()).add(n);
                }
                if (n.is("DynamicQuantizeLinear")) {
                    quantisers.add(n);
                }
            } else if (f.number() == GRAPH_INITIALIZER) {
                initializers.put(graph.message(f).string(TENSOR_NAME), f);
            } else if (f.number() == GRAPH_OUTPUT) {
                graphOutputs.add(graph.message(f).string(1)); // ValueInfoProto.name
            }
        }
        int notRewritable = 0;
        for (Node q : quantisers) {
            Map<Node, int[]> sums = rewritableMatMuls(q, consumers, graphOutputs);
            if (sums == null) {
                notRewritable++;
            } else {
                rewritable.put(q.outputs().get(0), q);
                columnSums.putAll(sums);
                width.put(q, weightRows.get(sums.keySet().iterator().next()));
            }
        }
        this.kept = notRewritable;
    }

    /** Whether {@code n} is a matmul whose A is the codes of a rewritable quantiser. */
    boolean isRewrittenMatMul(Node n) {
        return columnSums.containsKey(n);
    }

    /** Whether {@code n} is a rewritable quantiser. */
    boolean isRewrittenQuantiser(Node n) {
        return n.is("DynamicQuantizeLinear") && rewritable.get(n.outputs().get(0)) == n;
    }

    /**
     * The column sums of each matmul {@code dql}'s codes feed, or null where it is not rewritable.
     */
    private Map<Node, int[]> rewritableMatMuls(
            Node dql, Map<String, List<Node>> consumers, Set<String> graphOutputs) {
        if (dql.outputs().size() != 3) {
            return null;
        }
        String codes = dql.outputs().get(0);
        String scale = dql.outputs().get(1);
        String zeroPoint = dql.outputs().get(2);
        if (graphOutputs.contains(scale) || graphOutputs.contains(zeroPoint)) {
            return null;
        }
        List<Node> matmuls = consumers.getOrDefault(codes, List.of());
        Map<Node, int[]> sums = new IdentityHashMap<>();
        for (Node m : matmuls) {
            List<String> in = m.inputs();
            if (!m.is("MatMulInteger")
                    || in.size() < 3
                    || !in.get(0).equals(codes)
                    || !in.get(2).equals(zeroPoint)
                    || in.subList(1, in.size()).contains(codes)) {
                return null;
            }
            int[] columns = columnSums(m);
            if (columns == null) {
                return null;
            }
            sums.put(m, columns);
        }
        for (Node z : consumers.getOrDefault(zeroPoint, List.of())) {
            if (!sums.containsKey(z) || z.inputs().indexOf(zeroPoint) != 2) {
                return null;
            }
        }
        for (Node s : consumers.getOrDefault(scale, List.of())) {
            if (!s.is("Mul")) {
                return null;
            }
        }
        return sums.isEmpty() ? null : sums;
    }

    /**
     * {@code Σ_k (B[k,n] − zpB[n])} for each column n of the matmul's constant 8-bit weights, or
     * {@code null} where the weights or their zero point are not constants of that form.
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
                Arrays.fill(zp, z.values()[0]);
            } else if (z.values().length == n) {
                zp = z.values();
            } else {
                return null;
            }
        }
        weightRows.put(matmul, (long) k);
        int[] sums = new int[n];
        int[] w = b.values();
        for (int row = 0; row < k; row++) {
            for (int col = 0; col < n; col++) {
                sums[col] += w[row * n + col] - zp[col];
            }
        }
        return sums;
    }

    /** An 8-bit initializer's shape and values, or {@code null}. */
    private Tensor tensor(String name) {
        Field f = initializers.get(name);
        if (f == null) {
            return null;
        }
        ProtoMessage m = graph.message(f);
        long[] dims = m.int64s(TENSOR_DIMS).stream().mapToLong(Long::longValue).toArray();
        int type = m.int64s(TENSOR_DATA_TYPE).stream().findFirst().orElse(0L).intValue();
        if (type != INT8 && type != UINT8) {
            return null;
        }
        long count = 1;
        for (long d : dims) {
            count *= d;
        }
        for (Field v : m.fields) {
            if (v.number() == TENSOR_RAW_DATA && v.valueEnd() - v.valueStart() == count) {
                int[] values = new int[(int) count];
                for (int i = 0; i < count; i++) {
                    byte x = m.bytes[v.valueStart() + i];
                    values[i] = type == INT8 ? x : x & 0xff;
                }
                return new Tensor(dims, type, values);
            }
        }
        List<Long> ints = m.int64s(TENSOR_INT32_DATA);
        return ints.size() == count
                ? new Tensor(dims, type, ints.stream().mapToInt(Long::intValue).toArray())
                : null;
    }
}

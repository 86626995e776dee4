package io.zerolayer.gpu.costmodel;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The operators and initializer shapes of an ONNX model, read straight from its protobuf wire
 * format with protobuf-java (field numbers of onnx.proto); tensor data is skipped, so reading a 90
 * MB model touches its bytes once and keeps only the graph's skeleton.
 */
public record OnnxGraph(List<Node> nodes, Map<String, Initializer> initializers) {

    /** An operator: its type and the names of its inputs and outputs. */
    public record Node(String opType, List<String> inputs, List<String> outputs) {}

    /** A constant tensor: its shape and TensorProto.DataType. */
    public record Initializer(String name, long[] dims, int dataType) {
        public long elements() {
            long n = 1;
            for (long d : dims) {
                n *= d;
            }
            return n;
        }
    }

    public static OnnxGraph read(InputStream model) {
        try {
            CodedInputStream in = CodedInputStream.newInstance(model);
            in.setSizeLimit(Integer.MAX_VALUE);
            List<Node> nodes = new ArrayList<>();
            Map<String, Initializer> initializers = new HashMap<>();
            forEachGraph(in, graph -> readGraph(graph, nodes, initializers));
            return new OnnxGraph(List.copyOf(nodes), Map.copyOf(initializers));
        } catch (IOException e) {
            throw new UncheckedIOException("Not a readable ONNX model: " + e.getMessage(), e);
        }
    }

    /** Reads a {@code GraphProto}, positioned at its start and limited to its length. */
    public interface GraphReader {
        void read(CodedInputStream graph) throws IOException;
    }

    /**
     * Walks a serialized {@code ModelProto}, handing each of its graphs (field 7) to {@code
     * reader}, limited to the graph's bytes; every other field is skipped.
     */
    public static void forEachGraph(CodedInputStream in, GraphReader reader) throws IOException {
        while (true) {
            int tag = in.readTag();
            if (tag == 0) {
                return;
            }
            if (WireFormat.getTagFieldNumber(tag) == 7) { // ModelProto.graph
                int limit = in.pushLimit(in.readRawVarint32());
                reader.read(in);
                in.popLimit(limit);
            } else {
                in.skipField(tag);
            }
        }
    }

    private static void readGraph(
            CodedInputStream in, List<Node> nodes, Map<String, Initializer> initializers)
            throws IOException {
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> { // GraphProto.node
                    int limit = in.pushLimit(in.readRawVarint32());
                    nodes.add(readNode(in));
                    in.popLimit(limit);
                }
                case 5 -> { // GraphProto.initializer
                    int limit = in.pushLimit(in.readRawVarint32());
                    Initializer init = readTensor(in);
                    initializers.put(init.name(), init);
                    in.popLimit(limit);
                }
                default -> in.skipField(tag);
            }
        }
    }

    private static Node readNode(CodedInputStream in) throws IOException {
        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        String opType = "";
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            switch (WireFormat.getTagFieldNumber(tag)) {
                case 1 -> inputs.add(in.readString());
                case 2 -> outputs.add(in.readString());
                case 4 -> opType = in.readString();
                default -> in.skipField(tag);
            }
        }
        return new Node(opType, inputs, outputs);
    }

    private static Initializer readTensor(CodedInputStream in) throws IOException {
        List<Long> dims = new ArrayList<>();
        int dataType = 0;
        String name = "";
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            int field = WireFormat.getTagFieldNumber(tag);
            if (field == 1
                    && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                int limit = in.pushLimit(in.readRawVarint32()); // packed dims
                while (!in.isAtEnd()) {
                    dims.add(in.readInt64());
                }
                in.popLimit(limit);
            } else if (field == 1) {
                dims.add(in.readInt64());
            } else if (field == 2) {
                dataType = in.readInt32();
            } else if (field == 8) {
                name = in.readString();
            } else {
                in.skipField(tag); // raw_data and typed data: not needed for shapes
            }
        }
        return new Initializer(name, dims.stream().mapToLong(Long::longValue).toArray(), dataType);
    }

    /** Operator types and how often each occurs. */
    public Map<String, Integer> opCounts() {
        Map<String, Integer> counts = new java.util.TreeMap<>();
        nodes.forEach(n -> counts.merge(n.opType(), 1, Integer::sum));
        return counts;
    }
}

package io.zerolayer.gpu.onnx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Serialized ONNX messages (onnx.proto's field numbers), for the graphs ZeroLayer writes itself:
 * calibration's single-operator models and the nodes and constants of a graph rewrite. Each method
 * returns one message's bytes, to be written as a field of the message that holds it.
 */
public final class OnnxWriter {
    /** TensorProto.DataType values. */
    public static final int FLOAT = 1;

    public static final int UINT8 = 2;
    public static final int INT8 = 3;
    public static final int INT32 = 6;
    public static final int INT64 = 7;

    /** ModelProto fields. */
    public static final int MODEL_GRAPH = 7;

    public static final int MODEL_OPSET_IMPORT = 8;

    /** GraphProto fields. */
    public static final int GRAPH_NODE = 1;

    public static final int GRAPH_INITIALIZER = 5;
    public static final int GRAPH_INPUT = 11;
    public static final int GRAPH_OUTPUT = 12;
    public static final int GRAPH_VALUE_INFO = 13;

    /** NodeProto fields. */
    public static final int NODE_INPUT = 1;

    public static final int NODE_OUTPUT = 2;
    public static final int NODE_NAME = 3;
    public static final int NODE_OP_TYPE = 4;
    public static final int NODE_ATTRIBUTE = 5;
    public static final int NODE_DOMAIN = 7;

    /** TensorProto fields. */
    public static final int TENSOR_DIMS = 1;

    public static final int TENSOR_DATA_TYPE = 2;
    public static final int TENSOR_INT32_DATA = 5;
    public static final int TENSOR_NAME = 8;
    public static final int TENSOR_RAW_DATA = 9;

    private OnnxWriter() {}

    /** A NodeProto of the default domain. */
    public static byte[] node(
            String name,
            String opType,
            List<String> inputs,
            List<String> outputs,
            byte[]... attributes) {
        return node(name, opType, "", inputs, outputs, attributes);
    }

    /** A NodeProto of {@code domain} ({@code ""}: the default). */
    public static byte[] node(
            String name,
            String opType,
            String domain,
            List<String> inputs,
            List<String> outputs,
            byte[]... attributes) {
        return ProtoMessage.write(
                w -> {
                    for (String in : inputs) {
                        w.writeString(NODE_INPUT, in);
                    }
                    for (String out : outputs) {
                        w.writeString(NODE_OUTPUT, out);
                    }
                    w.writeString(NODE_NAME, name);
                    w.writeString(NODE_OP_TYPE, opType);
                    for (byte[] a : attributes) {
                        w.writeByteArray(NODE_ATTRIBUTE, a);
                    }
                    if (!domain.isEmpty()) {
                        w.writeString(NODE_DOMAIN, domain);
                    }
                });
    }

    /** An OperatorSetIdProto: {@code domain} ({@code ""}: the default) at {@code version}. */
    public static byte[] opset(String domain, long version) {
        return ProtoMessage.write(
                w -> {
                    w.writeString(1, domain); // OperatorSetIdProto.domain
                    w.writeInt64(2, version); // OperatorSetIdProto.version
                });
    }

    /** An AttributeProto holding one integer. */
    public static byte[] intAttribute(String name, long value) {
        return ProtoMessage.write(
                w -> {
                    w.writeString(1, name); // AttributeProto.name
                    w.writeInt64(3, value); // .i
                    w.writeInt32(20, 2); // .type = INT
                });
    }

    /** An AttributeProto holding a list of integers. */
    public static byte[] intsAttribute(String name, long... values) {
        return ProtoMessage.write(
                w -> {
                    w.writeString(1, name); // AttributeProto.name
                    for (long v : values) {
                        w.writeInt64(8, v); // .ints
                    }
                    w.writeInt32(20, 7); // .type = INTS
                });
    }

    /** A TensorProto with its data as little-endian {@code raw} bytes; no dims is a scalar. */
    public static byte[] tensor(String name, int dataType, byte[] raw, long... dims) {
        return ProtoMessage.write(
                w -> {
                    for (long d : dims) {
                        w.writeInt64(TENSOR_DIMS, d);
                    }
                    w.writeInt32(TENSOR_DATA_TYPE, dataType);
                    w.writeString(TENSOR_NAME, name);
                    w.writeByteArray(TENSOR_RAW_DATA, raw);
                });
    }

    public static byte[] floatScalar(String name, float value) {
        return tensor(name, FLOAT, little(4).putFloat(value).array());
    }

    public static byte[] floatVector(String name, float... values) {
        ByteBuffer raw = little(4 * values.length);
        for (float v : values) {
            raw.putFloat(v);
        }
        return tensor(name, FLOAT, raw.array(), values.length);
    }

    public static byte[] int32Vector(String name, int... values) {
        ByteBuffer raw = little(4 * values.length);
        for (int v : values) {
            raw.putInt(v);
        }
        return tensor(name, INT32, raw.array(), values.length);
    }

    public static byte[] int64Vector(String name, long... values) {
        ByteBuffer raw = little(8 * values.length);
        for (long v : values) {
            raw.putLong(v);
        }
        return tensor(name, INT64, raw.array(), values.length);
    }

    private static ByteBuffer little(int bytes) {
        return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * A ValueInfoProto of a tensor: each dim a number ({@code dim_value}) or a name ({@code
     * dim_param}, a size known only at run time).
     */
    public static byte[] valueInfo(String name, int elemType, Object... dims) {
        byte[] shape =
                ProtoMessage.write(
                        w -> {
                            for (Object d : dims) {
                                w.writeByteArray( // TensorShapeProto.dim
                                        1,
                                        ProtoMessage.write(
                                                dim -> {
                                                    if (d instanceof String param) {
                                                        dim.writeString(2, param);
                                                    } else {
                                                        dim.writeInt64(1, ((Number) d).longValue());
                                                    }
                                                }));
                            }
                        });
        byte[] tensorType =
                ProtoMessage.write(
                        w -> {
                            w.writeInt32(1, elemType); // TypeProto.Tensor.elem_type
                            w.writeByteArray(2, shape); // TypeProto.Tensor.shape
                        });
        byte[] type = ProtoMessage.write(w -> w.writeByteArray(1, tensorType)); // .tensor_type
        return ProtoMessage.write(
                w -> {
                    w.writeString(1, name); // ValueInfoProto.name
                    w.writeByteArray(2, type); // ValueInfoProto.type
                });
    }

    /** A ModelProto of one graph on the default operator set of {@code opset}. */
    public static byte[] model(long irVersion, String producer, byte[] graph, long opset) {
        byte[] opsetId = opset("", opset);
        return ProtoMessage.write(
                w -> {
                    w.writeInt64(1, irVersion); // ModelProto.ir_version
                    w.writeString(2, producer); // ModelProto.producer_name
                    w.writeByteArray(MODEL_GRAPH, graph);
                    w.writeByteArray(MODEL_OPSET_IMPORT, opsetId);
                });
    }
}

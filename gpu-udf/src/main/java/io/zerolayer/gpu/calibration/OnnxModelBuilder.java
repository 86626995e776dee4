package io.zerolayer.gpu.calibration;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes tiny single-operator ONNX models (ModelProto in protobuf wire format, field numbers from
 * onnx.proto) for calibration: no ONNX tooling is needed at run time.
 *
 * <pre>{@code
 * byte[] model = OnnxModelBuilder.singleOp("MatMul", List.of(input("A", FLOAT, 512, 512), input("B", FLOAT, 512, 512)),
 *         output("C", FLOAT, 512, 512));
 * }</pre>
 */
public final class OnnxModelBuilder {
    /** TensorProto.DataType values. */
    public static final int FLOAT = 1;

    public static final int UINT8 = 2;
    public static final int INT8 = 3;
    public static final int INT32 = 6;

    /** A graph input or output: name, element type, fixed shape. */
    public record Tensor(String name, int elemType, long... dims) {}

    private OnnxModelBuilder() {}

    public static Tensor tensor(String name, int elemType, long... dims) {
        return new Tensor(name, elemType, dims);
    }

    /**
     * A model with one node of {@code opType}, taking the inputs in order and producing {@code
     * output}.
     */
    public static byte[] singleOp(String opType, List<Tensor> inputs, Tensor output) {
        byte[] node =
                message(
                        out -> {
                            for (Tensor in : inputs) {
                                out.writeString(1, in.name()); // NodeProto.input
                            }
                            out.writeString(2, output.name()); // NodeProto.output
                            out.writeString(3, "op"); // NodeProto.name
                            out.writeString(4, opType); // NodeProto.op_type
                        });
        List<byte[]> inputInfos = new ArrayList<>();
        for (Tensor in : inputs) {
            inputInfos.add(valueInfo(in));
        }
        byte[] graph =
                message(
                        out -> {
                            out.writeByteArray(1, node); // GraphProto.node
                            out.writeString(2, "calibration"); // GraphProto.name
                            for (byte[] info : inputInfos) {
                                out.writeByteArray(11, info); // GraphProto.input
                            }
                            out.writeByteArray(12, valueInfo(output)); // GraphProto.output
                        });
        byte[] opset =
                message(
                        out -> {
                            out.writeString(
                                    1, ""); // OperatorSetIdProto.domain: the default ONNX domain
                            out.writeInt64(2, 17); // OperatorSetIdProto.version
                        });
        return message(
                out -> {
                    out.writeInt64(1, 8); // ModelProto.ir_version
                    out.writeString(2, "zerolayer-calibrate"); // ModelProto.producer_name
                    out.writeByteArray(7, graph); // ModelProto.graph
                    out.writeByteArray(8, opset); // ModelProto.opset_import
                });
    }

    private static byte[] valueInfo(Tensor t) {
        byte[] shape =
                message(
                        out -> {
                            for (long d : t.dims()) {
                                out.writeByteArray(
                                        1,
                                        message(
                                                dim ->
                                                        dim.writeInt64(
                                                                1,
                                                                d))); // TensorShapeProto.dim{dim_value}
                            }
                        });
        byte[] tensorType =
                message(
                        out -> {
                            out.writeInt32(1, t.elemType()); // TypeProto.Tensor.elem_type
                            out.writeByteArray(2, shape); // TypeProto.Tensor.shape
                        });
        byte[] type = message(out -> out.writeByteArray(1, tensorType)); // TypeProto.tensor_type
        return message(
                out -> {
                    out.writeString(1, t.name()); // ValueInfoProto.name
                    out.writeByteArray(2, type); // ValueInfoProto.type
                });
    }

    private interface Writer {
        void write(CodedOutputStream out) throws IOException;
    }

    private static byte[] message(Writer writer) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            writer.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

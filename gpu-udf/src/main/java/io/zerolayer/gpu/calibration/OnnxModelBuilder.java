package io.zerolayer.gpu.calibration;

import io.zerolayer.gpu.onnx.OnnxWriter;
import io.zerolayer.gpu.onnx.ProtoMessage;
import java.util.List;

/**
 * Writes tiny single-operator ONNX models for calibration, with {@link OnnxWriter}: no ONNX tooling
 * is needed at run time.
 *
 * <pre>{@code
 * byte[] model = OnnxModelBuilder.singleOp("MatMul", List.of(input("A", FLOAT, 512, 512), input("B", FLOAT, 512, 512)),
 *         output("C", FLOAT, 512, 512));
 * }</pre>
 */
public final class OnnxModelBuilder {
    /** TensorProto.DataType values. */
    public static final int FLOAT = OnnxWriter.FLOAT;

    public static final int UINT8 = OnnxWriter.UINT8;
    public static final int INT8 = OnnxWriter.INT8;
    public static final int INT32 = OnnxWriter.INT32;

    /** A graph input or output: name, element type, fixed shape. */
    public record Tensor(String name, int elemType, long... dims) {
        byte[] valueInfo() {
            Object[] shape = new Object[dims.length];
            for (int i = 0; i < dims.length; i++) {
                shape[i] = dims[i];
            }
            return OnnxWriter.valueInfo(name, elemType, shape);
        }
    }

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
                OnnxWriter.node(
                        "op",
                        opType,
                        inputs.stream().map(Tensor::name).toList(),
                        List.of(output.name()));
        byte[] graph =
                ProtoMessage.write(
                        out -> {
                            out.writeByteArray(OnnxWriter.GRAPH_NODE, node);
                            out.writeString(2, "calibration"); // GraphProto.name
                            for (Tensor in : inputs) {
                                out.writeByteArray(OnnxWriter.GRAPH_INPUT, in.valueInfo());
                            }
                            out.writeByteArray(OnnxWriter.GRAPH_OUTPUT, output.valueInfo());
                        });
        return OnnxWriter.model(8, "zerolayer-calibrate", graph, 17);
    }
}

package io.zerolayer.gpu.devicecheck;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;

/**
 * An encoder's ONNX model with its weights zeroed: the same graph, operators, shapes and data
 * types, so ONNX Runtime fuses and runs it as it does the real one (dense kernels take as long on
 * zeros), but a file of zeros compresses to almost nothing. That is how every tier a GPU may plan,
 * 133 MB of fp32 weights included, travels in a device-check bundle of a few MiB.
 *
 * <p>The bytes of large floating-point and 8-bit initializers ({@value #MIN_ELEMENTS} elements or
 * more) are zeroed in place, so the protobuf stays valid without being rewritten; integer
 * initializers (shapes, axes) and small ones (scales, epsilons, biases) keep their values, so
 * reshapes and divisions still see what they expect.
 */
public final class StructuralCopy {
    /** Initializers at least this large are weights; smaller ones keep their values. */
    static final long MIN_ELEMENTS = 4096;

    private StructuralCopy() {}

    /** A copy of {@code onnx} with its weights zeroed. */
    public static byte[] zeroWeights(byte[] onnx) {
        byte[] out = Arrays.copyOf(onnx, onnx.length);
        try {
            CodedInputStream in = CodedInputStream.newInstance(onnx);
            in.setSizeLimit(Integer.MAX_VALUE);
            io.zerolayer.gpu.costmodel.OnnxGraph.forEachGraph(in, graph -> graph(graph, out));
        } catch (IOException e) {
            throw new UncheckedIOException("Not a readable ONNX model: " + e.getMessage(), e);
        }
        return out;
    }

    private static void graph(CodedInputStream in, byte[] out) throws IOException {
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (WireFormat.getTagFieldNumber(tag) == 5) { // GraphProto.initializer
                int limit = in.pushLimit(in.readRawVarint32());
                tensor(in, out);
                in.popLimit(limit);
            } else {
                in.skipField(tag);
            }
        }
    }

    /** Reads one TensorProto; zeroes its raw_data in {@code out} where it is a large weight. */
    private static void tensor(CodedInputStream in, byte[] out) throws IOException {
        long elements = 1;
        int dataType = 0;
        int rawStart = -1;
        int rawLength = 0;
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            int field = WireFormat.getTagFieldNumber(tag);
            if (field == 1
                    && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                int limit = in.pushLimit(in.readRawVarint32()); // packed dims
                while (!in.isAtEnd()) {
                    elements *= in.readInt64();
                }
                in.popLimit(limit);
            } else if (field == 1) {
                elements *= in.readInt64();
            } else if (field == 2) {
                dataType = in.readInt32();
            } else if (field == 9) { // raw_data
                rawLength = in.readRawVarint32();
                rawStart = in.getTotalBytesRead();
                in.skipRawBytes(rawLength);
            } else {
                in.skipField(tag);
            }
        }
        if (rawStart >= 0 && elements >= MIN_ELEMENTS && isWeightType(dataType)) {
            Arrays.fill(out, rawStart, rawStart + rawLength, (byte) 0);
        }
    }

    /** float, uint8, int8, float16, bfloat16: the types weights are stored in. */
    private static boolean isWeightType(int dataType) {
        return dataType == 1 || dataType == 2 || dataType == 3 || dataType == 10 || dataType == 16;
    }
}

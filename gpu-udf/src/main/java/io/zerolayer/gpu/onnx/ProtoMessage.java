package io.zerolayer.gpu.onnx;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The top-level fields of one serialized protobuf message, each kept as a span of the original
 * bytes, so a message can be copied with some fields replaced without knowing the others. No
 * generated ONNX classes are needed: the field numbers are onnx.proto's, named where they are used
 * ({@link OnnxWriter} writes the messages this reads).
 */
public final class ProtoMessage {
    /** One field: its number, wire type and where its value lies in {@link #bytes}. */
    public record Field(
            int number, int wireType, int start, int end, int valueStart, int valueEnd) {}

    /** The bytes the fields point into. */
    public final byte[] bytes;

    /** The message's top-level fields, in the order they were written. */
    public final List<Field> fields;

    private ProtoMessage(byte[] bytes, List<Field> fields) {
        this.bytes = bytes;
        this.fields = fields;
    }

    /** Reads the fields of the message held in {@code bytes[from, to)}. */
    public static ProtoMessage parse(byte[] bytes, int from, int to) {
        List<Field> fields = new ArrayList<>();
        try {
            CodedInputStream in = CodedInputStream.newInstance(bytes, from, to - from);
            in.setSizeLimit(Integer.MAX_VALUE);
            while (true) {
                int start = from + in.getTotalBytesRead();
                int tag = in.readTag();
                if (tag == 0) {
                    break;
                }
                int wireType = WireFormat.getTagWireType(tag);
                int valueStart;
                int valueEnd;
                if (wireType == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                    int length = in.readRawVarint32();
                    valueStart = from + in.getTotalBytesRead();
                    in.skipRawBytes(length);
                    valueEnd = valueStart + length;
                } else {
                    valueStart = from + in.getTotalBytesRead();
                    in.skipField(tag);
                    valueEnd = from + in.getTotalBytesRead();
                }
                fields.add(
                        new Field(
                                WireFormat.getTagFieldNumber(tag),
                                wireType,
                                start,
                                valueEnd,
                                valueStart,
                                valueEnd));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Not a readable ONNX model: " + e.getMessage(), e);
        }
        return new ProtoMessage(bytes, fields);
    }

    public static ProtoMessage parse(byte[] bytes) {
        return parse(bytes, 0, bytes.length);
    }

    /** The embedded message of a length-delimited field. */
    public ProtoMessage message(Field f) {
        return parse(bytes, f.valueStart(), f.valueEnd());
    }

    public String string(Field f) {
        return new String(
                bytes, f.valueStart(), f.valueEnd() - f.valueStart(), StandardCharsets.UTF_8);
    }

    public long varint(Field f) {
        try {
            return CodedInputStream.newInstance(
                            bytes, f.valueStart(), f.valueEnd() - f.valueStart())
                    .readRawVarint64();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The first value of a string field, or {@code ""}. */
    public String string(int number) {
        for (Field f : fields) {
            if (f.number() == number) {
                return string(f);
            }
        }
        return "";
    }

    /** Every value of a repeated string field, in order. */
    public List<String> strings(int number) {
        List<String> out = new ArrayList<>();
        for (Field f : fields) {
            if (f.number() == number) {
                out.add(string(f));
            }
        }
        return out;
    }

    /** Every value of a repeated int64 field, packed or not. */
    public List<Long> int64s(int number) {
        List<Long> out = new ArrayList<>();
        for (Field f : fields) {
            if (f.number() != number) {
                continue;
            }
            if (f.wireType() == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                try {
                    CodedInputStream in =
                            CodedInputStream.newInstance(
                                    bytes, f.valueStart(), f.valueEnd() - f.valueStart());
                    while (!in.isAtEnd()) {
                        out.add(in.readInt64());
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            } else {
                out.add(varint(f));
            }
        }
        return out;
    }

    /** Writes a field as it was read. */
    public void copy(Field f, CodedOutputStream out) throws IOException {
        out.writeRawBytes(bytes, f.start(), f.end() - f.start());
    }

    /** Writes one message with a {@link Writer}, returning its bytes. */
    public static byte[] write(Writer writer) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes, 1 << 16);
            writer.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes the fields of one message. */
    public interface Writer {
        void write(CodedOutputStream out) throws IOException;
    }
}

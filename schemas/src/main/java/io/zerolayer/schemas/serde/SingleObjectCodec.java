package io.zerolayer.schemas.serde;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.message.BadHeaderException;
import org.apache.avro.message.BinaryMessageDecoder;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.avro.message.MissingSchemaException;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificRecordBase;

/**
 * Avro single-object encoding (magic {@code C3 01}, 8-byte schema fingerprint, binary body) for one
 * generated record class. Every message names its writer schema by fingerprint, so readers resolve
 * older writers without a registry: the schemas that were ever published are shipped under {@code
 * avro-history/} and registered here.
 *
 * <pre>{@code
 * SingleObjectCodec<AnalysisRequest> codec = SingleObjectCodec.of(AnalysisRequest.class);
 * byte[] bytes = codec.encode(request);
 * AnalysisRequest back = codec.decode(bytes);
 * }</pre>
 */
public final class SingleObjectCodec<T extends SpecificRecordBase> {

    private static final String HISTORY_INDEX = "/avro-history/index.txt";

    private final Class<T> type;
    private final Schema schema;
    private final BinaryMessageEncoder<T> encoder;
    private final BinaryMessageDecoder<T> decoder;

    /**
     * Longest string or bytes field Avro reads here, unless the JVM sets its own limit: Avro sizes
     * a field's array from the length the record claims, before reading it, so without a bound a
     * record of a few bytes claiming a 2 GB string takes the heap. Far above any field a Kafka
     * record can carry (and the same bound JSON strings have).
     */
    public static final int MAX_FIELD_BYTES = 256 << 20;

    static {
        boolean changed = false;
        for (String limit :
                new String[] {
                    "org.apache.avro.limits.string.maxLength",
                    "org.apache.avro.limits.bytes.maxLength"
                }) {
            if (System.getProperty(limit) == null) {
                System.setProperty(limit, Integer.toString(MAX_FIELD_BYTES));
                changed = true;
            }
        }
        if (changed) {
            try {
                // Avro reads the limits once; have it read them again if it already did
                var reset =
                        org.apache.avro.SystemLimitException.class.getDeclaredMethod("resetLimits");
                reset.setAccessible(true);
                reset.invoke(null);
            } catch (ReflectiveOperationException | RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(SingleObjectCodec.class)
                        .warn(
                                "Avro's field length limits may not apply until restart: {}",
                                e.toString());
            }
        }
    }

    private SingleObjectCodec(Class<T> type) {
        this.type = type;
        this.schema = SpecificData.get().getSchema(type);
        this.encoder = new BinaryMessageEncoder<>(SpecificData.get(), schema);
        this.decoder = new BinaryMessageDecoder<>(SpecificData.get(), schema);
        for (Schema older : historicSchemas(schema.getFullName())) {
            decoder.addSchema(older);
        }
    }

    public static <T extends SpecificRecordBase> SingleObjectCodec<T> of(Class<T> type) {
        return new SingleObjectCodec<>(Objects.requireNonNull(type, "type"));
    }

    public Schema schema() {
        return schema;
    }

    /** The 64-bit CRC-64-AVRO fingerprint that prefixes every message this codec writes. */
    public long fingerprint() {
        return SchemaNormalization.parsingFingerprint64(schema);
    }

    /** Registers another writer schema this codec must be able to read. */
    public void addWriterSchema(Schema writer) {
        decoder.addSchema(writer);
    }

    public byte[] encode(T record) {
        try {
            ByteBuffer buffer = encoder.encode(record);
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode " + type.getSimpleName(), e);
        }
    }

    /**
     * Decodes one message.
     *
     * @throws UndecodableRecordException naming what is wrong with the bytes: empty, not
     *     single-object encoded, an unknown schema fingerprint, or a truncated or corrupt body
     */
    public T decode(byte[] bytes) {
        if (bytes == null || bytes.length == 0) {
            throw new UndecodableRecordException(
                    "Empty record: expected an Avro single-object encoded " + type.getSimpleName());
        }
        try {
            T record = decoder.decode(bytes);
            requireValidUtf8(record, bytes);
            return record;
        } catch (MissingSchemaException e) {
            throw new UndecodableRecordException(
                    "Unknown schema fingerprint in "
                            + type.getSimpleName()
                            + " record: the writer used a schema this reader was never given ("
                            + e.getMessage()
                            + ")",
                    e);
        } catch (BadHeaderException e) {
            throw new UndecodableRecordException(
                    "Not an Avro single-object encoded "
                            + type.getSimpleName()
                            + " (expected magic bytes C3 01): "
                            + e.getMessage(),
                    e);
        } catch (IOException
                | AvroRuntimeException
                | IndexOutOfBoundsException
                | NegativeArraySizeException
                | ClassCastException e) {
            throw new UndecodableRecordException(
                    "Truncated or corrupt "
                            + type.getSimpleName()
                            + " record ("
                            + bytes.length
                            + " bytes): "
                            + e,
                    e);
        }
    }

    private static List<Schema> historicSchemas(String fullName) {
        List<Schema> result = new ArrayList<>();
        try (InputStream index = SingleObjectCodec.class.getResourceAsStream(HISTORY_INDEX)) {
            if (index == null) {
                return result;
            }
            BufferedReader reader =
                    new BufferedReader(new InputStreamReader(index, StandardCharsets.UTF_8));
            String line;
            while ((line = reader.readLine()) != null) {
                line = line.strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    continue;
                }
                try (InputStream in =
                        SingleObjectCodec.class.getResourceAsStream("/avro-history/" + line)) {
                    if (in == null) {
                        throw new IllegalStateException(
                                "avro-history/index.txt names missing " + line);
                    }
                    Schema older = new Schema.Parser().parse(in);
                    if (older.getFullName().equals(fullName)) {
                        result.add(older);
                    }
                }
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read Avro schema history", e);
        }
    }

    /**
     * Avro decodes strings leniently, turning invalid UTF-8 into U+FFFD. A decoded record holding
     * more U+FFFD characters than the message holds encoded U+FFFD (EF BF BD) therefore came from
     * invalid bytes, and is refused rather than answered with mangled text.
     */
    private void requireValidUtf8(T record, byte[] bytes) {
        long decoded = replacementChars(record);
        if (decoded == 0) {
            return;
        }
        long encoded = 0;
        for (int i = 0; i + 2 < bytes.length; i++) {
            if (bytes[i] == (byte) 0xEF
                    && bytes[i + 1] == (byte) 0xBF
                    && bytes[i + 2] == (byte) 0xBD) {
                encoded++;
            }
        }
        if (decoded > encoded) {
            throw new UndecodableRecordException(
                    "Invalid UTF-8 in a string field of "
                            + type.getSimpleName()
                            + " ("
                            + (decoded - encoded)
                            + " malformed sequence(s))");
        }
    }

    private static long replacementChars(Object value) {
        if (value instanceof CharSequence s) {
            long n = 0;
            for (int i = 0; i < s.length(); i++) {
                if (s.charAt(i) == '\uFFFD') {
                    n++;
                }
            }
            return n;
        }
        if (value instanceof org.apache.avro.generic.IndexedRecord r) {
            long n = 0;
            for (int i = 0; i < r.getSchema().getFields().size(); i++) {
                n += replacementChars(r.get(i));
            }
            return n;
        }
        if (value instanceof java.util.Map<?, ?> m) {
            long n = 0;
            for (java.util.Map.Entry<?, ?> e : m.entrySet()) {
                n += replacementChars(e.getKey()) + replacementChars(e.getValue());
            }
            return n;
        }
        if (value instanceof java.util.Collection<?> c) {
            long n = 0;
            for (Object o : c) {
                n += replacementChars(o);
            }
            return n;
        }
        return 0;
    }
}

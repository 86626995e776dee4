package io.zerolayer.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.schemas.audit.AuditChainHash;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import io.zerolayer.schemas.serde.UndecodableRecordException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

class SingleObjectCodecTest {
    private final SingleObjectCodec<AnalysisRequest> codec =
            SingleObjectCodec.of(AnalysisRequest.class);

    private static AnalysisRequest request() {
        return AnalysisRequest.newBuilder()
                .setRequestId("r-1")
                .setTenantId("acme")
                .setPrompt("<task:embed> héllo ✓")
                .setSubmittedAt(Instant.ofEpochMilli(1_700_000_000_000L))
                .setDeadline(Instant.ofEpochMilli(1_700_000_060_000L))
                .setAttributes(Map.of("channel", "email"))
                .build();
    }

    @Test
    void aFewBytesClaimingAGigabyteStringAreRefusedWithoutAllocatingIt() {
        SingleObjectCodec<AnalysisRequest> codec = SingleObjectCodec.of(AnalysisRequest.class);
        ByteBuffer header = ByteBuffer.allocate(10).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        header.put((byte) 0xC3).put((byte) 0x01).putLong(codec.fingerprint());
        // requestId: a zig-zag varint length of 2^30 bytes, then nothing
        byte[] hostile = Arrays.copyOf(header.array(), 15);
        long zigzag = (1L << 30) << 1;
        for (int i = 10; i < 15; i++) {
            hostile[i] = (byte) ((zigzag & 0x7F) | (i < 14 ? 0x80 : 0));
            zigzag >>>= 7;
        }
        long before = Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory();
        assertThatThrownBy(() -> codec.decode(hostile))
                .isInstanceOf(UndecodableRecordException.class)
                .hasMessageContaining("Truncated or corrupt");
        assertThat(System.getProperty("org.apache.avro.limits.string.maxLength"))
                .isEqualTo(String.valueOf(SingleObjectCodec.MAX_FIELD_BYTES));
        assertThat(Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory() - before)
                .as("heap taken by refusing it")
                .isLessThan(SingleObjectCodec.MAX_FIELD_BYTES);
    }

    @Test
    void roundTripsAndPrefixesTheSchemaFingerprint() {
        byte[] bytes = codec.encode(request());
        assertThat(bytes[0]).isEqualTo((byte) 0xC3);
        assertThat(bytes[1]).isEqualTo((byte) 0x01);
        long fingerprint =
                ByteBuffer.wrap(bytes, 2, 8).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        assertThat(fingerprint).isEqualTo(codec.fingerprint());
        assertThat(codec.decode(bytes)).isEqualTo(request());
    }

    @Test
    void readsARecordWrittenWithTheOlderV0Schema() throws IOException {
        Schema v0;
        try (InputStream in =
                getClass().getResourceAsStream("/avro-history/AnalysisRequest-v0.avsc")) {
            v0 = new Schema.Parser().parse(in);
        }
        assertThat(v0.getField("deadline")).isNull();
        GenericRecord old = new GenericData.Record(v0);
        old.put("requestId", "old-1");
        old.put("tenantId", "legacy");
        old.put("prompt", "<task:summarize> text");
        old.put("submittedAt", 1_600_000_000_000L);
        byte[] bytes =
                new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v0).encode(old).array();

        AnalysisRequest read = codec.decode(bytes);
        assertThat(read.getRequestId()).isEqualTo("old-1");
        assertThat(read.getSubmittedAt()).isEqualTo(Instant.ofEpochMilli(1_600_000_000_000L));
        assertThat(read.getDeadline()).isNull();
        assertThat(read.getAttributes()).isEmpty();
    }

    @Test
    void badBytesFailWithAMessageSayingWhatIsWrong() {
        byte[] good = codec.encode(request());
        assertThatThrownBy(() -> codec.decode(new byte[0]))
                .isInstanceOf(UndecodableRecordException.class)
                .hasMessageContaining("Empty");
        assertThatThrownBy(() -> codec.decode("{\"requestId\":1}".getBytes()))
                .isInstanceOf(UndecodableRecordException.class)
                .hasMessageContaining("magic");
        byte[] unknown = good.clone();
        unknown[5] ^= 0x55;
        assertThatThrownBy(() -> codec.decode(unknown))
                .isInstanceOf(UndecodableRecordException.class)
                .hasMessageContaining("Unknown schema fingerprint");
        assertThatThrownBy(() -> codec.decode(Arrays.copyOf(good, good.length / 2)))
                .isInstanceOf(UndecodableRecordException.class)
                .hasMessageContaining("Truncated");
    }

    @Test
    void invalidUtf8InAStringIsRefusedButARealReplacementCharacterIsKept() {
        AnalysisRequest withFffd = request();
        withFffd.setPrompt("<task:embed> a \uFFFD is fine when it was sent");
        assertThat(codec.decode(codec.encode(withFffd)).getPrompt()).contains("\uFFFD");

        AnalysisRequest marker = request();
        marker.setPrompt("<task:embed> XYZ");
        byte[] bytes = codec.encode(marker);
        String latin = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
        int at = latin.indexOf("XYZ");
        bytes[at] = (byte) 0xC3; // a lead byte followed by 'Y': not UTF-8
        assertThatThrownBy(() -> codec.decode(bytes))
                .isInstanceOf(UndecodableRecordException.class)
                .hasMessageContaining("Invalid UTF-8");
    }

    @Test
    void aGraphDescriptorFromBeforeTheHardwareReportIsRead() throws IOException {
        Schema v1;
        try (InputStream in =
                getClass().getResourceAsStream("/avro-history/ExecutionGraph-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        GenericRecord node = new GenericData.Record(v1.getField("nodes").schema().getElementType());
        node.put("nodeId", "encode");
        node.put("kind", "encode");
        node.put("inputs", java.util.List.of());
        node.put("params", Map.of());
        GenericRecord old = new GenericData.Record(v1);
        old.put("graphId", "g1");
        old.put("signature", "task:embed ~0");
        old.put("task", "embed");
        old.put("outputFormat", "json");
        old.put("fidelity", new GenericData.EnumSymbol(v1.getField("fidelity").schema(), "FULL"));
        for (String f :
                new String[] {
                    "contractVersion", "compilerVersion", "runtimeVersion", "hardwareProfile"
                }) {
            old.put(f, "x");
        }
        old.put("modelChecksums", Map.of());
        old.put("nodes", java.util.List.of(node));
        old.put("compiledAt", 0L);
        byte[] bytes =
                new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old).array();
        ExecutionGraph read = SingleObjectCodec.of(ExecutionGraph.class).decode(bytes);
        assertThat(read.getGraphId()).isEqualTo("g1");
        assertThat(read.getHardwareReport()).isEmpty();
        assertThat(read.getNodes().get(0).getNodeId()).isEqualTo("encode");
    }

    /**
     * A minimal embed descriptor {@code id} as the writer schema {@code history} (a file of
     * avro-history) wrote it, encoded.
     */
    private byte[] olderDescriptor(String history, String id) throws IOException {
        Schema schema;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/" + history)) {
            schema = new Schema.Parser().parse(in);
        }
        GenericRecord old = new GenericData.Record(schema);
        old.put("graphId", id);
        old.put("signature", "task:embed ~0");
        old.put("task", "embed");
        old.put("outputFormat", "json");
        old.put(
                "fidelity",
                new GenericData.EnumSymbol(schema.getField("fidelity").schema(), "FULL"));
        for (String f :
                new String[] {
                    "contractVersion",
                    "compilerVersion",
                    "runtimeVersion",
                    "hardwareProfile",
                    "hardwareReport"
                }) {
            old.put(f, "x");
        }
        old.put("modelChecksums", Map.of());
        old.put("nodes", java.util.List.of());
        old.put("compiledAt", 0L);
        if (schema.getField("fallbackNodes") != null) {
            old.put("fallbackNodes", java.util.List.of());
        }
        return new BinaryMessageEncoder<GenericRecord>(GenericData.get(), schema)
                .encode(old)
                .array();
    }

    @Test
    void aGraphDescriptorFromBeforeFallbackNodesIsRead() throws IOException {
        ExecutionGraph read =
                SingleObjectCodec.of(ExecutionGraph.class)
                        .decode(olderDescriptor("ExecutionGraph-v2.avsc", "g2"));
        assertThat(read.getGraphId()).isEqualTo("g2");
        assertThat(read.getFallbackNodes()).isEmpty();
    }

    @Test
    void aGraphDescriptorFromBeforeGraphsWerePlansIsRead() throws IOException {
        ExecutionGraph read =
                SingleObjectCodec.of(ExecutionGraph.class)
                        .decode(olderDescriptor("ExecutionGraph-v3.avsc", "g3"));
        assertThat(read.getSignature()).isEqualTo("task:embed ~0");
        assertThat(read.getShape()).isEmpty();
        assertThat(read.getStructures()).isEmpty();
    }

    @Test
    void anAuditEntryFromBeforeStructureIdsIsReadAndHashesAsItWasWritten() throws IOException {
        Schema v1;
        try (InputStream in = getClass().getResourceAsStream("/avro-history/AuditEntry-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        GenericRecord old = new GenericData.Record(v1);
        old.put("kind", new GenericData.EnumSymbol(v1.getField("kind").schema(), "ENTRY"));
        old.put("tenantId", "acme");
        old.put("sequence", 1L);
        old.put("time", 0L);
        old.put("previousHash", AuditChainHash.GENESIS);
        old.put("hash", "h");
        byte[] bytes =
                new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old).array();
        AuditEntry read = SingleObjectCodec.of(AuditEntry.class).decode(bytes);
        assertThat(read.getStructureId()).isNull();
        assertThat(
                        new String(
                                AuditChainHash.canonical(read),
                                java.nio.charset.StandardCharsets.UTF_8))
                .startsWith(AuditChainHash.VERSION_1 + "\n");
    }

    @Test
    void aCostRecordFromBeforePriceSheetsIsRead() throws IOException {
        Schema v1;
        try (InputStream in =
                getClass().getResourceAsStream("/avro-history/KernelCostRecord-v1.avsc")) {
            v1 = new Schema.Parser().parse(in);
        }
        GenericRecord old = new GenericData.Record(v1);
        for (String f :
                new String[] {
                    "recordId",
                    "requestId",
                    "tenantId",
                    "graphId",
                    "nodeId",
                    "kernel",
                    "device",
                    "hardwareProfile"
                }) {
            old.put(f, "x");
        }
        old.put("startedAt", 0L);
        old.put("durationNanos", 5L);
        old.put("batchSize", 3);
        byte[] bytes =
                new BinaryMessageEncoder<GenericRecord>(GenericData.get(), v1).encode(old).array();
        KernelCostRecord read = SingleObjectCodec.of(KernelCostRecord.class).decode(bytes);
        assertThat(read.getDurationNanos()).isEqualTo(5L);
        assertThat(read.getDeviceTimeNanoUsd()).isZero();
        assertThat(read.getPriceSheetVersion()).isEmpty();
        assertThat(read.getRequestItems()).isZero();
    }
}

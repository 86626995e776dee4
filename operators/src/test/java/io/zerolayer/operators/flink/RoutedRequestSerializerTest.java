package io.zerolayer.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** A routed request crosses the keyBy and sits in the executor's state whole and compact. */
class RoutedRequestSerializerTest {
    private static final GraphCompiler ROUTING =
            new GraphCompiler(GraphIdentity.current("v1", GraphIdentity.ANY_HARDWARE));

    private static final String PAPER =
            "<document format=\"pdf-text\"><section:abstract>We measure things &amp; find < 3"
                    + " effects.</section:abstract><section:methods>Twice, to be sure."
                    + "</section:methods></document><task:answer><output_format:json>"
                    + "<question>How many effects?</question>";

    private static RoutedRequest routed(String prompt, RequestDecision decision) {
        ReplyRoute route = new ReplyRoute();
        route.correlationId = "c-1".getBytes(StandardCharsets.UTF_8);
        route.sourceTopic = "zerolayer.requests";
        route.sourcePartition = 1;
        route.sourceOffset = 42;
        route.json = true;
        route.replyTopicResolved = true; // the default topic, as admission resolves a null one
        return RoutedRequest.routed(
                        AnalysisRequest.newBuilder()
                                .setRequestId("r-1")
                                .setTenantId("acme")
                                .setPrompt(prompt)
                                .setSubmittedAt(Instant.parse("2026-12-05T00:00:00Z"))
                                .build(),
                        route,
                        decision,
                        "key#3",
                        70,
                        1_000)
                .queued(1_005, 300);
    }

    private static byte[] write(TypeSerializer<RoutedRequest> s, RoutedRequest r) throws Exception {
        DataOutputSerializer out = new DataOutputSerializer(256);
        s.serialize(r, out);
        return out.getCopyOfBuffer();
    }

    private static RoutedRequest read(TypeSerializer<RoutedRequest> s, byte[] bytes)
            throws Exception {
        return s.deserialize(new DataInputDeserializer(bytes));
    }

    @Test
    void theClassifierAndTheBatchQueueNameItForRoutedRequests() {
        assertThat(new DecodeAndClassifyFunction(null, null, null, null, null).getProducedType())
                .isSameAs(RoutedRequestSerializer.TYPE_INFO);
        KeyedBatchQueue.IN_FLIGHT.initializeSerializerUnlessSet(
                new org.apache.flink.api.common.ExecutionConfig());
        assertThat(KeyedBatchQueue.IN_FLIGHT.getElementSerializer())
                .isInstanceOf(RoutedRequestSerializer.class);
        assertThat(RoutedRequestSerializer.TYPE_INFO.createSerializer(new SerializerConfigImpl()))
                .isInstanceOf(RoutedRequestSerializer.class);
    }

    @Test
    void aDecidedRequestReadsBackEqualWithItsTextRunsRebuiltFromThePrompt() throws Exception {
        RequestDecision decision =
                RequestDecision.of(new StructureClassifier().classify(PAPER), ROUTING)
                        .withEstimate(37);
        RoutedRequest in = routed(PAPER, decision);
        RoutedRequestSerializer serializer = new RoutedRequestSerializer();
        byte[] bytes = write(serializer, in);
        RoutedRequest back = read(serializer, bytes);

        assertThat(back.decision()).isEqualTo(decision);
        assertThat(back.decision().content().scopes())
                .containsOnlyKeys("section:abstract", "section:methods");
        assertThat(back.decision().content().question()).isEqualTo("How many effects?");
        assertThat(back.request()).isEqualTo(in.request());
        assertThat(back)
                .extracting(
                        RoutedRequest::shardKey,
                        RoutedRequest::classifyMicros,
                        RoutedRequest::receivedAtMillis,
                        RoutedRequest::queuedAtMillis,
                        RoutedRequest::compileMicros)
                .containsExactly("key#3", 70L, 1_000L, 1_005L, 300L);
        assertThat(new String(back.route().correlationId, StandardCharsets.UTF_8)).isEqualTo("c-1");
        assertThat(back.route().replyTopic).isNull();
        assertThat(back.route().replyTopicResolved).isTrue();
        assertThat(back.route().json).isTrue();
        assertThat(back.route().sourceOffset).isEqualTo(42);
        // the runs cross as spans of the prompt, which the request carries once
        String written = new String(bytes, StandardCharsets.ISO_8859_1);
        assertThat(written.split("Twice, to be sure", -1)).hasSize(2);
    }

    @Test
    void aSafeModeRequestKeepsItsWarnings() throws Exception {
        String abnormal = "<task:summarize><a><b><c> text";
        RequestDecision decision =
                RequestDecision.safe(new StructureClassifier().classify(abnormal), ROUTING, 1000);
        RoutedRequestSerializer serializer = new RoutedRequestSerializer();
        RoutedRequest back = read(serializer, write(serializer, routed(abnormal, decision)));
        assertThat(back.safeMode()).isTrue();
        assertThat(back.decision()).isEqualTo(decision);
        assertThat(back.decision().warnings())
                .isNotEmpty()
                .allSatisfy(w -> assertThat(w.severity()).isEqualTo("warning"));
    }

    @Test
    void aCopyIsEqualButSharesNoMutablePart() {
        RoutedRequest in =
                routed(
                        PAPER,
                        RequestDecision.of(new StructureClassifier().classify(PAPER), ROUTING));
        RoutedRequest copy = new RoutedRequestSerializer().copy(in);
        assertThat(copy.request()).isEqualTo(in.request()).isNotSameAs(in.request());
        assertThat(copy.route()).isNotSameAs(in.route());
        assertThat(copy.route().correlationId).isEqualTo(in.route().correlationId);
    }

    @Test
    void itsSnapshotRestoresACompatibleSerializer() throws Exception {
        RoutedRequestSerializer serializer = new RoutedRequestSerializer();
        DataOutputSerializer out = new DataOutputSerializer(64);
        TypeSerializerSnapshot.writeVersionedSnapshot(out, serializer.snapshotConfiguration());
        TypeSerializerSnapshot<RoutedRequest> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(out.getCopyOfBuffer()),
                        getClass().getClassLoader());
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAsIs())
                .isTrue();
        assertThat(restored.restoreSerializer()).isEqualTo(serializer);
    }

    @Test
    void stateOfTheStructureKeyedLayoutIsReadAndMigrated() throws Exception {
        // what SimpleTypeSerializerSnapshot wrote for this class: its name, version 3, nothing
        DataOutputSerializer old = new DataOutputSerializer(64);
        old.writeUTF(RoutedRequestSerializer.Snapshot.class.getName());
        old.writeInt(RoutedRequestSerializer.STRUCTURE_KEYED_LAYOUT);
        TypeSerializerSnapshot<RoutedRequest> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(old.getCopyOfBuffer()),
                        getClass().getClassLoader());
        assertThat(
                        new RoutedRequestSerializer()
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAfterMigration())
                .isTrue();

        // a layout-3 record: the decision's one id, then its contract version …
        RequestDecision now =
                RequestDecision.of(new StructureClassifier().classify(PAPER), ROUTING);
        RequestDecision structureKeyed =
                new RequestDecision(
                        now.structureId(),
                        now.structureId(),
                        now.contractVersion(),
                        now.structure(),
                        now.content(),
                        now.warnings(),
                        now.encodeMillisAlone());
        byte[] written = writeLayout6(routed(PAPER, structureKeyed));
        DataOutputSerializer id = new DataOutputSerializer(80);
        org.apache.flink.types.StringValue.writeString(now.structureId(), id);
        byte[] once = id.getCopyOfBuffer();
        // … and, as in layout 4, no part marker at its end nor, as in 5, the structure's tier
        byte[] layout3 = dropLast(dropTier(dropFirst(written, once), now));
        RoutedRequest back = read(restored.restoreSerializer(), layout3);
        assertThat(back.decision())
                .as("the structure id routes it, as it did")
                .isEqualTo(structureKeyed);
        assertThat(back.request().getPrompt()).isEqualTo(PAPER);
    }

    @Test
    void aPartOfASplitRequestKeepsItsPartAndStateOfThePlanKeyedLayoutIsMigrated() throws Exception {
        RequestDecision whole =
                RequestDecision.of(new StructureClassifier().classify(PAPER), ROUTING);
        RequestDecision part = whole.asPart(new RequestDecision.Part(1, 3), whole.content(), 7);
        RoutedRequestSerializer serializer = new RoutedRequestSerializer();
        assertThat(read(serializer, write(serializer, routed(PAPER, part))).decision())
                .isEqualTo(part);

        DataOutputSerializer old = new DataOutputSerializer(64);
        old.writeUTF(RoutedRequestSerializer.Snapshot.class.getName());
        old.writeInt(RoutedRequestSerializer.PLAN_KEYED_LAYOUT);
        TypeSerializerSnapshot<RoutedRequest> restored =
                TypeSerializerSnapshot.readVersionedSnapshot(
                        new DataInputDeserializer(old.getCopyOfBuffer()),
                        getClass().getClassLoader());
        assertThat(
                        serializer
                                .snapshotConfiguration()
                                .resolveSchemaCompatibility(restored)
                                .isCompatibleAfterMigration())
                .isTrue();
        // a layout-4 record is a whole request's, without the part marker or the tier
        byte[] layout4 = dropLast(dropTier(writeLayout6(routed(PAPER, whole)), whole));
        DataInputDeserializer in = new DataInputDeserializer(layout4);
        assertThat(restored.restoreSerializer().deserialize(in).decision()).isEqualTo(whole);
        assertThat(in.available()).isZero();
    }

    @Test
    void aStructuresTierIsKeptAndStateOfThePartsLayoutReadsAsTheTasksDefault() throws Exception {
        RequestDecision exact =
                RequestDecision.of(
                        new StructureClassifier().classify(PAPER),
                        ROUTING,
                        io.zerolayer.operators.quality.QualityFloor.BEST,
                        true);
        assertThat(exact.structure().quality())
                .isEqualTo(io.zerolayer.operators.quality.QualityFloor.BEST);
        RoutedRequestSerializer serializer = new RoutedRequestSerializer();
        assertThat(read(serializer, write(serializer, routed(PAPER, exact))).decision())
                .isEqualTo(exact);
        assertThat(exact.graphId())
                .as("the floor is part of the plan")
                .isNotEqualTo(
                        RequestDecision.of(new StructureClassifier().classify(PAPER), ROUTING)
                                .graphId());

        RequestDecision whole =
                RequestDecision.of(new StructureClassifier().classify(PAPER), ROUTING);
        RequestDecision part = whole.asPart(new RequestDecision.Part(2, 3), whole.content(), 7);
        byte[] layout5 = dropTier(writeLayout6(routed(PAPER, part)), whole);
        DataInputDeserializer in = new DataInputDeserializer(layout5);
        RoutedRequest back =
                new RoutedRequestSerializer(RoutedRequestSerializer.PARTS_LAYOUT).deserialize(in);
        assertThat(back.decision()).isEqualTo(part);
        assertThat(in.available()).isZero();
    }

    @Test
    void aRequestCrossesFieldByFieldNotAsAnAvroMessageAndLayout6StateIsMigrated() throws Exception {
        RoutedRequest in =
                routed(
                        PAPER,
                        RequestDecision.of(new StructureClassifier().classify(PAPER), ROUTING));
        byte[] bytes = write(new RoutedRequestSerializer(), in);
        byte[] fingerprint =
                java.nio.ByteBuffer.allocate(8)
                        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
                        .putLong(SingleObjectCodec.of(AnalysisRequest.class).fingerprint())
                        .array();
        assertThat(indexOfOrMinusOne(bytes, fingerprint))
                .as("an Avro single-object message in the record")
                .isEqualTo(-1);

        RoutedRequest back =
                read(
                        new RoutedRequestSerializer(RoutedRequestSerializer.TIERS_LAYOUT),
                        writeLayout6(in));
        assertThat(back.request()).isEqualTo(in.request());
        assertThat(back.decision()).isEqualTo(in.decision());
        assertThat(back.route().replyTopicResolved)
                .as("layout 6 did not mark it: the encoder resolves it again")
                .isFalse();
    }

    /**
     * {@code r} as layout 6 wrote it: its request an Avro single-object message, its route without
     * the resolved mark.
     */
    private static byte[] writeLayout6(RoutedRequest r) throws Exception {
        byte[] bytes = write(new RoutedRequestSerializer(), r);
        DataOutputSerializer fields = new DataOutputSerializer(256);
        RoutedRequestSerializer.writeRequest(r.request(), fields);
        byte[] prefix = fields.getCopyOfBuffer();
        assertThat(java.util.Arrays.copyOf(bytes, prefix.length)).isEqualTo(prefix);
        byte[] avro = SingleObjectCodec.of(AnalysisRequest.class).encode(r.request());
        // and without the route's resolved mark, after its reply topic
        DataOutputSerializer topic = new DataOutputSerializer(64);
        org.apache.flink.types.StringValue.writeString(r.route().replyTopic, topic);
        int mark = prefix.length + topic.length();
        DataOutputSerializer out = new DataOutputSerializer(bytes.length + avro.length);
        out.writeInt(avro.length);
        out.write(avro);
        out.write(bytes, prefix.length, mark - prefix.length);
        out.write(bytes, mark + 1, bytes.length - mark - 1);
        return out.getCopyOfBuffer();
    }

    private static int indexOfOrMinusOne(byte[] bytes, byte[] part) {
        try {
            return indexOf(bytes, part);
        } catch (AssertionError notFound) {
            return -1;
        }
    }

    /**
     * {@code bytes} without the structure's tier (its floor's ordinal and exactness, after the
     * workload's strategy): a record as layouts before 6 wrote it, whose floor was the default.
     */
    private static byte[] dropTier(byte[] bytes, RequestDecision d) throws Exception {
        assertThat(d.structure().quality())
                .isEqualTo(io.zerolayer.operators.quality.QualityFloor.BALANCED);
        DataOutputSerializer strategy = new DataOutputSerializer(16);
        org.apache.flink.types.StringValue.writeString(
                d.structure().workload().strategy(), strategy);
        byte[] s = strategy.getCopyOfBuffer();
        byte[] withTier = java.util.Arrays.copyOf(s, s.length + 2);
        withTier[s.length] = (byte) d.structure().quality().ordinal();
        withTier[s.length + 1] = 0; // not exact
        byte[] without = dropFirst(bytes, withTier);
        byte[] out = new byte[without.length + s.length];
        // put the strategy back where the tier was cut out with it
        int at = indexOf(bytes, withTier);
        System.arraycopy(without, 0, out, 0, at);
        System.arraycopy(s, 0, out, at, s.length);
        System.arraycopy(without, at, out, at + s.length, without.length - at);
        return out;
    }

    private static int indexOf(byte[] bytes, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= bytes.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("not found");
    }

    /** {@code bytes} without its last byte (a whole request's part marker: false). */
    private static byte[] dropLast(byte[] bytes) {
        assertThat(bytes[bytes.length - 1]).isZero();
        return java.util.Arrays.copyOf(bytes, bytes.length - 1);
    }

    /** {@code bytes} without the first occurrence of {@code part}. */
    private static byte[] dropFirst(byte[] bytes, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= bytes.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (bytes[i + j] != part[j]) {
                    continue outer;
                }
            }
            byte[] out = new byte[bytes.length - part.length];
            System.arraycopy(bytes, 0, out, 0, i);
            System.arraycopy(bytes, i + part.length, out, i, bytes.length - i - part.length);
            return out;
        }
        throw new AssertionError("not found");
    }

    @Test
    void itIsStatelessSoFlinkSharesItInsteadOfBuildingACodecPerSnapshot() {
        RoutedRequestSerializer serializer = new RoutedRequestSerializer();
        assertThat(serializer.duplicate()).isSameAs(serializer);
    }
}

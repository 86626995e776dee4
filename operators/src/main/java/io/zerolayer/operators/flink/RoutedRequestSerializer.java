package io.zerolayer.operators.flink;

import io.zerolayer.operators.compiler.RequestDecision;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfig;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.api.common.typeutils.TypeSerializerSnapshot;
import org.apache.flink.core.memory.DataInputView;
import org.apache.flink.core.memory.DataOutputView;
import org.apache.flink.types.StringValue;

/**
 * Writes a {@link RoutedRequest} between the classifier and the executor and into the executor's
 * queue state: the request as Avro single-object bytes (so a request written by an older schema
 * still reads), the decision field by field, and each text run of its content as a span of the
 * prompt instead of a second copy of its text. Hand-written because Flink's POJO serializer would
 * hand the decision's lists and maps to Kryo, which neither reads them fast nor promises to read
 * them after an upgrade; this format is versioned by its {@link Snapshot}.
 */
public final class RoutedRequestSerializer extends TypeSerializer<RoutedRequest> {
    private static final long serialVersionUID = 1L;

    /**
     * Layout 3: the decision's routing id was the structure's id, before graph ids were plans'
     * (what Flink's {@code SimpleTypeSerializerSnapshot} recorded as its version 3). Read on
     * restore, with the structure id as the routing id, and migrated.
     */
    static final int STRUCTURE_KEYED_LAYOUT = 3;

    /** Layout 4: the decision carries its plan's graph id and its structure's id. */
    static final int PLAN_KEYED_LAYOUT = 4;

    /** Layout 5: and, for a part of a split request, which part it is. */
    static final int PARTS_LAYOUT = 5;

    /** Layout 6: and the structure's quality floor and exactness (the tier its plan may choose). */
    static final int TIERS_LAYOUT = 6;

    /**
     * Layout 7: the request field by field, as the classifier decoded it, instead of re-encoded as
     * an Avro message: a JSON request is not turned into Avro on its way to the executor, and
     * neither side runs the Avro codec.
     */
    static final int LAYOUT = 7;

    /** The layout this serializer reads; it always writes {@link #LAYOUT}. */
    private final int readLayout;

    public RoutedRequestSerializer() {
        this(LAYOUT);
    }

    RoutedRequestSerializer(int readLayout) {
        this.readLayout = readLayout;
    }

    /**
     * One codec for every copy of this serializer: building one parses the schema history, and
     * Flink duplicates state serializers for each asynchronous snapshot. Avro's message encoder and
     * decoder are thread-safe.
     */
    private static final class Requests {
        static final SingleObjectCodec<AnalysisRequest> CODEC =
                SingleObjectCodec.of(AnalysisRequest.class);
    }

    private static SingleObjectCodec<AnalysisRequest> codec() {
        return Requests.CODEC;
    }

    @Override
    public boolean isImmutableType() {
        return false; // its request and route are mutable Avro and POJO objects
    }

    @Override
    public TypeSerializer<RoutedRequest> duplicate() {
        return this; // stateless: the layout it reads never changes
    }

    @Override
    public RoutedRequest createInstance() {
        return null;
    }

    /** The request and route are copied; the decision is immutable and shared. */
    @Override
    public RoutedRequest copy(RoutedRequest from) {
        ReplyRoute route = new ReplyRoute();
        route.replyTopic = from.route().replyTopic;
        route.correlationId =
                from.route().correlationId == null ? null : from.route().correlationId.clone();
        route.sourceTopic = from.route().sourceTopic;
        route.sourcePartition = from.route().sourcePartition;
        route.sourceOffset = from.route().sourceOffset;
        route.json = from.route().json;
        route.replyTopicResolved = from.route().replyTopicResolved;
        return new RoutedRequest(
                AnalysisRequest.newBuilder(from.request()).build(),
                route,
                from.decision(),
                from.shardKey(),
                from.classifyMicros(),
                from.receivedAtMillis(),
                from.queuedAtMillis(),
                from.compileMicros());
    }

    @Override
    public RoutedRequest copy(RoutedRequest from, RoutedRequest reuse) {
        return copy(from);
    }

    @Override
    public int getLength() {
        return -1;
    }

    @Override
    public void serialize(RoutedRequest r, DataOutputView out) throws IOException {
        writeRequest(r.request(), out);
        ReplyRoute route = r.route();
        StringValue.writeString(route.replyTopic, out);
        out.writeBoolean(route.replyTopicResolved);
        out.writeBoolean(route.correlationId != null);
        if (route.correlationId != null) {
            out.writeInt(route.correlationId.length);
            out.write(route.correlationId);
        }
        StringValue.writeString(route.sourceTopic, out);
        out.writeInt(route.sourcePartition);
        out.writeLong(route.sourceOffset);
        out.writeBoolean(route.json);
        StringValue.writeString(r.shardKey(), out);
        out.writeLong(r.classifyMicros());
        out.writeLong(r.receivedAtMillis());
        out.writeLong(r.queuedAtMillis());
        out.writeLong(r.compileMicros());
        RequestDecisionFormat.write(r.decision(), r.request().getPrompt(), out);
    }

    static void writeRequest(AnalysisRequest r, DataOutputView out) throws IOException {
        StringValue.writeString(r.getRequestId(), out);
        StringValue.writeString(r.getTenantId(), out);
        StringValue.writeString(r.getPrompt(), out);
        out.writeLong(r.getSubmittedAt().toEpochMilli());
        out.writeBoolean(r.getDeadline() != null);
        if (r.getDeadline() != null) {
            out.writeLong(r.getDeadline().toEpochMilli());
        }
        Map<String, String> attributes = r.getAttributes();
        out.writeInt(attributes.size());
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            StringValue.writeString(e.getKey(), out);
            StringValue.writeString(e.getValue(), out);
        }
    }

    /** The request as {@link #writeRequest} wrote it, or, before layout 7, as an Avro message. */
    private AnalysisRequest readRequest(DataInputView in) throws IOException {
        if (readLayout < LAYOUT) {
            byte[] bytes = new byte[in.readInt()];
            in.readFully(bytes);
            return codec().decode(bytes);
        }
        AnalysisRequest.Builder r =
                AnalysisRequest.newBuilder()
                        .setRequestId(StringValue.readString(in))
                        .setTenantId(StringValue.readString(in))
                        .setPrompt(StringValue.readString(in))
                        .setSubmittedAt(java.time.Instant.ofEpochMilli(in.readLong()));
        r.setDeadline(in.readBoolean() ? java.time.Instant.ofEpochMilli(in.readLong()) : null);
        int n = in.readInt();
        Map<String, String> attributes = new LinkedHashMap<>(Math.max(4, n * 2));
        for (int i = 0; i < n; i++) {
            attributes.put(StringValue.readString(in), StringValue.readString(in));
        }
        return r.setAttributes(attributes).build();
    }

    @Override
    public RoutedRequest deserialize(DataInputView in) throws IOException {
        AnalysisRequest request = readRequest(in);
        ReplyRoute route = new ReplyRoute();
        route.replyTopic = StringValue.readString(in);
        // before layout 7 the encoder resolved every route again
        route.replyTopicResolved = readLayout >= LAYOUT && in.readBoolean();
        if (in.readBoolean()) {
            route.correlationId = new byte[in.readInt()];
            in.readFully(route.correlationId);
        }
        route.sourceTopic = StringValue.readString(in);
        route.sourcePartition = in.readInt();
        route.sourceOffset = in.readLong();
        route.json = in.readBoolean();
        String shardKey = StringValue.readString(in);
        long classifyMicros = in.readLong();
        long receivedAtMillis = in.readLong();
        long queuedAtMillis = in.readLong();
        long compileMicros = in.readLong();
        RequestDecision decision = RequestDecisionFormat.read(request.getPrompt(), readLayout, in);
        return new RoutedRequest(
                request,
                route,
                decision,
                shardKey,
                classifyMicros,
                receivedAtMillis,
                queuedAtMillis,
                compileMicros);
    }

    @Override
    public RoutedRequest deserialize(RoutedRequest reuse, DataInputView in) throws IOException {
        return deserialize(in);
    }

    @Override
    public void copy(DataInputView in, DataOutputView out) throws IOException {
        serialize(deserialize(in), out);
    }

    @Override
    public boolean equals(Object obj) {
        return obj instanceof RoutedRequestSerializer other && other.readLayout == readLayout;
    }

    @Override
    public int hashCode() {
        return 31 * RoutedRequestSerializer.class.hashCode() + readLayout;
    }

    @Override
    public TypeSerializerSnapshot<RoutedRequest> snapshotConfiguration() {
        return new Snapshot();
    }

    /**
     * The serializer's snapshot: the layout state was written in ({@link #LAYOUT} now). State of
     * the older {@link #TIERS_LAYOUT}, {@link #PARTS_LAYOUT}, {@link #PLAN_KEYED_LAYOUT} and {@link
     * #STRUCTURE_KEYED_LAYOUT} is read by a serializer of that layout and migrated; any other is
     * incompatible.
     */
    public static final class Snapshot implements TypeSerializerSnapshot<RoutedRequest> {
        private int layout = LAYOUT;

        @Override
        public int getCurrentVersion() {
            return LAYOUT;
        }

        @Override
        public void writeSnapshot(DataOutputView out) {
            // the version Flink writes with it is the layout: nothing else to keep
        }

        @Override
        public void readSnapshot(int readVersion, DataInputView in, ClassLoader classLoader)
                throws IOException {
            if (readVersion != LAYOUT
                    && readVersion != TIERS_LAYOUT
                    && readVersion != PARTS_LAYOUT
                    && readVersion != PLAN_KEYED_LAYOUT
                    && readVersion != STRUCTURE_KEYED_LAYOUT) {
                throw new IOException(
                        "Queued requests were written in layout "
                                + readVersion
                                + ", which this version reads as none of "
                                + LAYOUT
                                + ", "
                                + TIERS_LAYOUT
                                + ", "
                                + PARTS_LAYOUT
                                + ", "
                                + PLAN_KEYED_LAYOUT
                                + " and "
                                + STRUCTURE_KEYED_LAYOUT
                                + ": start the job without this savepoint");
            }
            layout = readVersion;
        }

        @Override
        public TypeSerializer<RoutedRequest> restoreSerializer() {
            return new RoutedRequestSerializer(layout);
        }

        @Override
        public org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility<
                        RoutedRequest>
                resolveSchemaCompatibility(TypeSerializerSnapshot<RoutedRequest> old) {
            if (!(old instanceof Snapshot s)) {
                return org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility
                        .incompatible();
            }
            return s.layout == LAYOUT
                    ? org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility
                            .compatibleAsIs()
                    : org.apache.flink.api.common.typeutils.TypeSerializerSchemaCompatibility
                            .compatibleAfterMigration();
        }
    }

    /**
     * The type information of {@link RoutedRequest}: every stream and state that carries one names
     * it, so Flink uses this serializer, never Kryo or its POJO serializer.
     */
    public static final TypeInformation<RoutedRequest> TYPE_INFO = new Info();

    static final class Info extends TypeInformation<RoutedRequest> {
        private static final long serialVersionUID = 1L;

        @Override
        public boolean isBasicType() {
            return false;
        }

        @Override
        public boolean isTupleType() {
            return false;
        }

        @Override
        public int getArity() {
            return 1;
        }

        @Override
        public int getTotalFields() {
            return 1;
        }

        @Override
        public Class<RoutedRequest> getTypeClass() {
            return RoutedRequest.class;
        }

        @Override
        public boolean isKeyType() {
            return false;
        }

        @Override
        public TypeSerializer<RoutedRequest> createSerializer(SerializerConfig config) {
            return new RoutedRequestSerializer();
        }

        @Override
        public String toString() {
            return "RoutedRequest";
        }

        @Override
        public boolean equals(Object obj) {
            return obj instanceof Info;
        }

        @Override
        public int hashCode() {
            return Info.class.hashCode();
        }

        @Override
        public boolean canEqual(Object obj) {
            return obj instanceof Info;
        }
    }
}

package io.zerolayer.operators.flink;

import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.serde.JsonCodec;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.time.Instant;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.util.Collector;
import org.apache.flink.util.OutputTag;

/**
 * Decodes a raw request (Avro single-object, or JSON when {@code content-type: application/json}),
 * classifies its structure and computes its graph id. Every input leaves as exactly one of: a
 * {@link RoutedRequest} (main output), a REJECTED {@link Reply} ({@link #REJECTIONS}) or a {@link
 * DeadLetter} ({@link #DEAD_LETTERS}).
 */
public class DecodeAndClassifyFunction extends ProcessFunction<RawRecord, RoutedRequest> {
    public static final OutputTag<Reply> REJECTIONS = new OutputTag<>("rejections") {};
    public static final OutputTag<DeadLetter> DEAD_LETTERS = new OutputTag<>("dead-letters") {};

    private final String hardwareProfile;
    private transient SingleObjectCodec<AnalysisRequest> codec;
    private transient StructureClassifier classifier;
    private transient GraphIdentity identity;

    public DecodeAndClassifyFunction(String hardwareProfile) {
        this.hardwareProfile = hardwareProfile;
    }

    @Override
    public void open(OpenContext context) {
        codec = SingleObjectCodec.of(AnalysisRequest.class);
        classifier = new StructureClassifier();
        identity = GraphIdentity.current(hardwareProfile);
    }

    @Override
    public void processElement(RawRecord raw, Context ctx, Collector<RoutedRequest> out) {
        long receivedAt = System.currentTimeMillis();
        ReplyRoute route = ReplyRoute.of(raw);
        AnalysisRequest request;
        try {
            request =
                    route.json
                            ? JsonCodec.readRequest(
                                    raw.value == null ? new byte[0] : raw.value,
                                    Instant.ofEpochMilli(raw.timestamp))
                            : codec.decode(raw.value);
        } catch (RuntimeException e) {
            ctx.output(DEAD_LETTERS, new DeadLetter(raw, e));
            return;
        }
        long start = System.nanoTime();
        ClassifiedPrompt classified = classifier.classify(request.getPrompt());
        long classifyMicros = (System.nanoTime() - start) / 1_000;
        if (!classified.compiles()) {
            ctx.output(
                    REJECTIONS,
                    new Reply(
                            Responses.rejected(request, classified.diagnostics(), classifyMicros),
                            route));
            return;
        }
        RoutedRequest routed = new RoutedRequest();
        routed.request = request;
        routed.graphId = identity.graphId(classified.signature());
        routed.route = route;
        routed.classifyMicros = classifyMicros;
        routed.receivedAtMillis = receivedAt;
        out.collect(routed);
    }
}

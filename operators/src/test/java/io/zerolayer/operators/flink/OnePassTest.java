package io.zerolayer.operators.flink;

import static io.zerolayer.operators.flink.FlinkFunctionsTest.CODEC;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.classifier;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.classifierHarness;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.executor;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.executorHarness;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.raw;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.JsonCodec;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.junit.jupiter.api.Test;

/** A request's bytes are decoded once, where it is classified, on their way to its reply. */
class OnePassTest {
    @Test
    void anAvroAndAJsonRequestAreEachDecodedOnceFromRecordToReply() throws Exception {
        DecodeAndClassifyFunction classify = classifier();
        List<RoutedRequest> routed;
        try (var h = classifierHarness(classify)) {
            h.processElement(
                    raw(CODEC.encode(request("avro-1", "<task:embed> The pump failed."))), 0);
            h.processElement(
                    raw(
                            JsonCodec.writeRequest(request("json-1", "<task:embed> It was fixed.")),
                            ZeroLayerHeaders.CONTENT_TYPE,
                            ZeroLayerHeaders.JSON),
                    0);
            routed = h.extractOutputValues();
        }
        assertThat(routed).hasSize(2);
        assertThat(classify.decodedRecords()).isEqualTo(2);

        // the hop to the executor's slot: Flink's serializer, which decodes no request
        RoutedRequestSerializer hop = new RoutedRequestSerializer();
        List<RoutedRequest> arrived = new ArrayList<>();
        for (RoutedRequest r : routed) {
            DataOutputSerializer out = new DataOutputSerializer(1024);
            hop.serialize(r, out);
            arrived.add(hop.deserialize(new DataInputDeserializer(out.getCopyOfBuffer())));
        }
        try (var h = executorHarness(executor(2))) {
            for (RoutedRequest in : arrived) {
                h.processElement(in, 0);
            }
            assertThat(h.extractOutputValues())
                    .extracting(
                            (Reply r) -> r.response.getRequestId() + ":" + r.response.getStatus())
                    .containsExactly("avro-1:" + ResponseStatus.OK, "json-1:" + ResponseStatus.OK);
            assertThat(h.extractOutputValues())
                    .extracting(r -> r.route.json)
                    .as("each answered in its own format")
                    .containsExactly(false, true);
        }
        assertThat(classify.decodedRecords()).as("decodes, record to reply").isEqualTo(2);
    }
}

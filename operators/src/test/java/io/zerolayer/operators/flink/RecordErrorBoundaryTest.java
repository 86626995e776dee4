package io.zerolayer.operators.flink;

import static io.zerolayer.operators.flink.FlinkFunctionsTest.CODEC;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.classifierHarness;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.executor;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.executorHarness;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.raw;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.operators.door.InvalidRequestException;
import io.zerolayer.operators.door.ReplyTopics;
import io.zerolayer.operators.kafka.DeadLetter;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.kafka.ReplyRecord;
import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.operators.replies.Reply;
import io.zerolayer.operators.replies.Responses;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.ZeroLayerHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.flink.streaming.util.ProcessFunctionTestHarnesses;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * Whatever a record or control command holds, it ends as a reply or a dead letter and the operators
 * keep going: checked at the door, caught per record, and always writable.
 */
class RecordErrorBoundaryTest {

    private static List<DeadLetter> deadLetters(
            KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest> h) {
        return h.getSideOutput(DecodeAndClassifyFunction.DEAD_LETTERS).stream()
                .map(StreamRecord::getValue)
                .toList();
    }

    private static RawRecord json(String body, String... headers) {
        String[] all = new String[headers.length + 2];
        all[0] = ZeroLayerHeaders.CONTENT_TYPE;
        all[1] = ZeroLayerHeaders.JSON;
        System.arraycopy(headers, 0, all, 2, headers.length);
        return raw(body.getBytes(StandardCharsets.UTF_8), all);
    }

    @Test
    void timestampsOutsideTheYears1970To9999AreDeadLetteredNotPassedOn() throws Exception {
        try (var h = classifierHarness()) {
            h.processElement(
                    json(
                            "{\"requestId\":\"far\",\"tenantId\":\"t\",\"prompt\":\"<task:embed>"
                                    + " x\",\"submittedAt\":\"+1000000000-01-01T00:00:00Z\"}"),
                    0);
            h.processElement(
                    json(
                            "{\"requestId\":\"late\",\"tenantId\":\"t\",\"prompt\":\"<task:embed>"
                                    + " x\",\"deadline\":\"+10000-01-01T00:00:00Z\"}"),
                    0);
            AnalysisRequest avro = request("avro-far", "<task:embed> x");
            avro.setSubmittedAt(Instant.ofEpochMilli(Long.MAX_VALUE));
            h.processElement(raw(CODEC.encode(avro)), 0);
            h.processElement(raw(CODEC.encode(request("fine", "<task:embed> x"))), 0);

            assertThat(h.extractOutputValues())
                    .extracting(r -> r.request().getRequestId())
                    .containsExactly("fine");
            assertThat(deadLetters(h))
                    .extracting(d -> d.exceptionMessage)
                    .satisfiesExactly(
                            m -> assertThat(m).startsWith("submittedAt +1000000000"),
                            m -> assertThat(m).startsWith("deadline +10000"),
                            m -> assertThat(m).startsWith("submittedAt +292278994"));
            assertThat(deadLetters(h))
                    .extracting(d -> d.exceptionClass)
                    .containsOnly(InvalidRequestException.class.getName());
        }
    }

    @Test
    void aReplyTopicThatIsIllegalOrTheJobsOwnOrNotAllowedIsDeadLetteredWithTheReason()
            throws Exception {
        try (var h = classifierHarness()) {
            Map<String, String> refused =
                    Map.of(
                            "../x",
                            "not a legal Kafka topic name",
                            "r".repeat(300),
                            "not a legal Kafka topic name",
                            "costs",
                            "one of the job's own topics",
                            "requests",
                            "one of the job's own topics",
                            "elsewhere",
                            "not on the reply-topic allow-list");
            for (String topic : refused.keySet()) {
                h.processElement(
                        raw(
                                CODEC.encode(request(topic, "<task:embed> x")),
                                ZeroLayerHeaders.REPLY_TOPIC,
                                topic),
                        0);
            }
            h.processElement(
                    raw(
                            CODEC.encode(request("allowed", "<task:embed> x")),
                            ZeroLayerHeaders.REPLY_TOPIC,
                            "replies.team-a"),
                    0);
            h.processElement(
                    raw(
                            CODEC.encode(request("default", "<task:embed> x")),
                            ZeroLayerHeaders.REPLY_TOPIC,
                            " "),
                    0);

            assertThat(h.extractOutputValues())
                    .extracting(r -> r.request().getRequestId() + "→" + r.route().replyTopic)
                    .containsExactly("allowed→replies.team-a", "default→responses");
            List<DeadLetter> dead = deadLetters(h);
            assertThat(dead).hasSize(refused.size());
            for (DeadLetter d : dead) {
                String topic = new String(d.original.header(ZeroLayerHeaders.REPLY_TOPIC));
                assertThat(d.exceptionMessage).contains(refused.get(topic));
                assertThat(d.exceptionMessage.length()).isLessThan(400); // quotes, not copies
            }
        }
    }

    @Test
    void theAllowListNeverAdmitsTheJobsOwnTopicsAndRefusesToBeConfiguredWithThem() {
        ReplyTopics topics =
                new ReplyTopics(
                        "zerolayer.responses",
                        List.of("zerolayer.*", "team.replies"),
                        List.of("zerolayer.kernel-costs", "zerolayer.control"));
        assertThat(topics.resolve("zerolayer.replies.x")).isEqualTo("zerolayer.replies.x");
        assertThat(topics.resolve("team.replies")).isEqualTo("team.replies");
        assertThatThrownBy(() -> topics.resolve("zerolayer.kernel-costs"))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> topics.resolve("team.replies.other"))
                .hasMessageContaining("zerolayer.responses, team.replies, zerolayer.*");
        assertThatThrownBy(
                        () -> new ReplyTopics("responses", List.of("control"), List.of("control")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("one of the job's own topics");
        assertThatThrownBy(() -> new ReplyTopics("responses", List.of("a/b"), List.of()))
                .hasMessageContaining("not a topic name");
    }

    @Test
    void theRepliesSinkNamesEveryTopicAReplyCanReachSoItCanFindItsOwnTransactions() {
        ReplyTopics topics =
                new ReplyTopics(
                        "zerolayer.responses",
                        List.of("zerolayer.replies.*", "team.replies"),
                        List.of("zerolayer.kernel-costs"));
        var pattern = topics.pattern();
        for (String t : List.of("zerolayer.responses", "zerolayer.replies.a", "team.replies")) {
            assertThat(pattern.matcher(t).matches()).as(t).isTrue();
        }
        // the dots are literal, and a listed name is not a prefix
        for (String t :
                List.of(
                        "zerolayerXresponses",
                        "team.replies.b",
                        "zerolayer.control",
                        "zerolayer.dlt")) {
            assertThat(pattern.matcher(t).matches()).as(t).isFalse();
        }
        var facet =
                new ReplySerializationSchema(topics)
                        .getKafkaDatasetFacet()
                        .orElseThrow()
                        .getTopicIdentifier();
        assertThat(facet.getTopicPattern().pattern()).isEqualTo(pattern.pattern());
    }

    @Test
    void oversizeIdsAndAttributesAreDeadLettered() throws Exception {
        try (var h = classifierHarness()) {
            h.processElement(raw(CODEC.encode(request("x".repeat(1000), "<task:embed> x"))), 0);
            AnalysisRequest big = request("attrs", "<task:embed> x");
            big.setAttributes(Map.of("blob", "a".repeat(1 << 20)));
            h.processElement(raw(CODEC.encode(big)), 0);
            AnalysisRequest noId = request("", "<task:embed> x");
            h.processElement(raw(CODEC.encode(noId)), 0);
            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(deadLetters(h))
                    .extracting(d -> d.exceptionMessage)
                    .satisfiesExactly(
                            m -> assertThat(m).startsWith("requestId 'xxx").contains("1000 chars"),
                            m -> assertThat(m).contains("attributes hold 1048580 chars"),
                            m -> assertThat(m).isEqualTo("requestId is empty"));
        }
    }

    @Test
    void aReloadWhoseYamlCannotBeUsedIsIgnoredByBothOperators() throws Exception {
        String nonStringKey = "1: x\nversion: 9\n";
        try (var classify = classifierHarness();
                KeyedBroadcastOperatorTestHarness<String, RoutedRequest, ControlCommand, Reply> h =
                        executorHarness(executor(4))) {
            for (String yaml : List.of(nonStringKey, "tags: [", "- just\n- a list")) {
                classify.processBroadcastElement(
                        new ControlCommand(ControlCommand.RELOAD_CONTRACTS, yaml), 0);
                h.processBroadcastElement(
                        new ControlCommand(ControlCommand.RELOAD_CONTRACTS, yaml), 0);
            }
            h.processBroadcastElement(new ControlCommand("invalid: unknown command 'x'", null), 0);
            h.processBroadcastElement(new ControlCommand(null, null), 0);
            classify.processElement(raw(CODEC.encode(request("after", "<task:embed> x"))), 0);
            RoutedRequest routed = classify.extractOutputValues().get(0);
            h.processElement(routed, 0);
            assertThat(h.extractOutputValues())
                    .singleElement()
                    .satisfies(
                            r -> assertThat(r.response.getStatus()).isEqualTo(ResponseStatus.OK));
        }
    }

    @Test
    void aDeadLetterTooLargeToWriteIsCutToFitAndSaysWhatWasLeftOut() {
        long limit = 256 * 1024;
        DeadLetterSerializationSchema schema = new DeadLetterSerializationSchema("dlt", limit);
        RawRecord huge = raw(new byte[1 << 20], "trace", "t-1");
        huge.key = "k".getBytes();
        ProducerRecord<byte[], byte[]> cut =
                schema.serialize(
                        new DeadLetter(huge, new IllegalStateException("x".repeat(100_000))),
                        null,
                        null);
        int headerBytes = 0;
        for (var header : cut.headers()) {
            headerBytes += header.key().length() + header.value().length;
        }
        assertThat(cut.value().length + cut.key().length + headerBytes).isLessThan((int) limit);
        assertThat(new String(cut.headers().lastHeader(ZeroLayerHeaders.DLT_TRUNCATED).value()))
                .startsWith("value: kept ")
                .endsWith(" of 1048576 bytes");
        assertThat(cut.headers().lastHeader("trace").value()).isEqualTo("t-1".getBytes());
        assertThat(
                        new String(
                                cut.headers()
                                        .lastHeader(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE)
                                        .value()))
                .hasSizeLessThan(DeadLetter.MAX_MESSAGE_CHARS + 40);

        RawRecord small = raw(new byte[] {1, 2, 3});
        ProducerRecord<byte[], byte[]> whole =
                schema.serialize(
                        new DeadLetter(small, new IllegalStateException("no")), null, null);
        assertThat(whole.value()).containsExactly(1, 2, 3);
        assertThat(whole.headers().lastHeader(ZeroLayerHeaders.DLT_TRUNCATED)).isNull();
    }

    @Test
    void aReplyThatCannotBeWrittenGoesToTheDeadLetterTopicWithItsCorrelationId() throws Exception {
        EncodeReplies encode =
                new EncodeReplies(
                        new ReplyTopics("responses", List.of("replies.*"), List.of("costs")));
        ReplyRoute route = new ReplyRoute();
        route.correlationId = "c-9".getBytes();
        route.sourceTopic = "requests";
        route.sourceOffset = 7;
        AnalysisResponse response =
                Responses.failed(request("r-9", "<task:embed> x"), null, "ZL091", "boom", 0);
        try (var h = ProcessFunctionTestHarnesses.forProcessFunction(encode)) {
            route.replyTopic = "replies.ok";
            h.processElement(new Reply(response, route), 0);
            route = copyOf(route);
            route.replyTopic = "costs"; // slipped past the door: refused again here
            h.processElement(new Reply(response, route), 0);
            route = copyOf(route);
            route.replyTopic = null;
            AnalysisResponse unwritable = new AnalysisResponse(); // required fields missing
            unwritable.setRequestId("r-10");
            h.processElement(new Reply(unwritable, route), 0);

            assertThat(h.extractOutputValues())
                    .singleElement()
                    .satisfies(r -> assertThat(r.topic).isEqualTo("replies.ok"));
            DeadLetterSerializationSchema dlt = new DeadLetterSerializationSchema("dlt", 1 << 20);
            List<ProducerRecord<byte[], byte[]>> letters =
                    h.getSideOutput(EncodeReplies.DEAD_LETTERS).stream()
                            .map(letter -> dlt.serialize(letter.getValue(), null, null))
                            .toList();
            assertThat(letters).hasSize(2);
            ProducerRecord<byte[], byte[]> refused = letters.get(0);
            assertThat(refused.key()).isEqualTo("r-9".getBytes());
            assertThat(refused.value()).isNull();
            assertThat(refused.headers().lastHeader(ZeroLayerHeaders.CORRELATION_ID).value())
                    .isEqualTo("c-9".getBytes());
            assertThat(
                            new String(
                                    refused.headers()
                                            .lastHeader(ZeroLayerHeaders.DLT_EXCEPTION_MESSAGE)
                                            .value()))
                    .contains("one of the job's own topics");
            assertThat(
                            new String(
                                    refused.headers()
                                            .lastHeader(ZeroLayerHeaders.DLT_ORIGINAL_TOPIC)
                                            .value()))
                    .isEqualTo("requests");
            assertThat(letters.get(1).key()).isEqualTo("r-10".getBytes());
        }
    }

    @Test
    void everyReplyToOneRequestRecordCarriesTheSameReplyIdAndCorrelationId() throws Exception {
        EncodeReplies encode =
                new EncodeReplies(new ReplyTopics("responses", List.of(), List.of("costs")));
        AnalysisResponse response =
                Responses.failed(request("r-1", "<task:embed> x"), null, "ZL091", "boom", 0);
        ReplyRoute first = new ReplyRoute();
        first.correlationId = "c-1".getBytes();
        first.sourceTopic = "requests";
        first.sourcePartition = 3;
        first.sourceOffset = 41;
        // a replay reads the same record again: an equal route, a separately built reply
        ReplyRoute replayed = copyOf(first);
        ReplyRoute next = copyOf(first);
        next.sourceOffset = 42;
        try (var h = ProcessFunctionTestHarnesses.forProcessFunction(encode)) {
            h.processElement(new Reply(response, first), 0);
            h.processElement(new Reply(response, replayed), 0);
            h.processElement(new Reply(response, next), 0);
            List<ReplyRecord> out = h.extractOutputValues();
            assertThat(out)
                    .extracting(r -> new String(r.header(ZeroLayerHeaders.REPLY_ID)))
                    .containsExactly("requests/3/41", "requests/3/41", "requests/3/42");
            assertThat(out.get(1).header(ZeroLayerHeaders.CORRELATION_ID))
                    .isEqualTo(out.get(0).header(ZeroLayerHeaders.CORRELATION_ID));
            ProducerRecord<byte[], byte[]> written =
                    new ReplySerializationSchema(
                                    new ReplyTopics("responses", List.of(), List.of("costs")))
                            .serialize(out.get(0), null, null);
            assertThat(written.topic()).isEqualTo("responses");
            assertThat(written.key()).isEqualTo("r-1".getBytes());
            assertThat(written.headers().lastHeader(ZeroLayerHeaders.REPLY_ID).value())
                    .isEqualTo("requests/3/41".getBytes());
        }
    }

    private static ReplyRoute copyOf(ReplyRoute route) {
        ReplyRoute copy = new ReplyRoute();
        copy.replyTopic = route.replyTopic;
        copy.correlationId = route.correlationId.clone();
        copy.sourceTopic = route.sourceTopic;
        copy.sourcePartition = route.sourcePartition;
        copy.sourceOffset = route.sourceOffset;
        copy.json = route.json;
        return copy;
    }
}

package io.zerolayer.tests.testutils;

import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/**
 * A property-based generator of malformed requests: Avro requests with extreme field values and
 * their bytes flipped, cut and spliced; JSON requests whose fields have the wrong types, extreme
 * values or broken syntax; and hostile headers (reply topics that are illegal, the job's own, not
 * allowed or missing; odd content types; random names and bytes). Drawn from a seed, so a failing
 * run can be repeated.
 */
public final class HostileRecords {
    private static final SingleObjectCodec<AnalysisRequest> AVRO =
            SingleObjectCodec.of(AnalysisRequest.class);

    /** A well-formed single-object record of another schema than the requests'. */
    public static byte[] ofAnotherSchema() {
        return SingleObjectCodec.of(io.zerolayer.schemas.ExecutionGraph.class)
                .encode(
                        io.zerolayer.schemas.ExecutionGraph.newBuilder()
                                .setGraphId("g")
                                .setSignature("s")
                                .setTask("t")
                                .setOutputFormat("json")
                                .setFidelity(io.zerolayer.schemas.Fidelity.FULL)
                                .setContractVersion("c")
                                .setCompilerVersion("c")
                                .setRuntimeVersion("r")
                                .setHardwareProfile("h")
                                .setModelChecksums(Map.of())
                                .setNodes(List.of())
                                .setCompiledAt(Instant.now())
                                .build());
    }

    /** One generated record: what it is (for messages), key, value and headers in order. */
    public record Hostile(String label, byte[] key, byte[] value, List<Header> headers) {}

    public record Header(String name, byte[] value) {}

    private final List<String> replyTopics;

    /**
     * @param replyTopics reply topics to draw from besides generated ones: the job's own topics, an
     *     allowed one that exists, and so on
     */
    public HostileRecords(List<String> replyTopics) {
        this.replyTopics = replyTopics;
    }

    /**
     * {@code count} records drawn from {@code seed}. Generators run only inside jqwik's lifecycle,
     * so they are sampled through jqwik's own sampling, from its per-thread random seeded here.
     */
    public List<Hostile> draw(int count, long seed) {
        net.jqwik.engine.SourceOfRandomness.create(Long.toString(seed));
        return records().sampleStream().limit(count).toList();
    }

    Arbitrary<Hostile> records() {
        Arbitrary<Body> body = Arbitraries.oneOf(avro(), json(), raw());
        return Combinators.combine(
                        body,
                        headers(),
                        Arbitraries.bytes().array(byte[].class).ofMaxSize(40).injectNull(0.5))
                .as(
                        (b, h, key) -> {
                            List<Header> all = new ArrayList<>(h);
                            if (b.json()) {
                                all.add(
                                        0,
                                        header(ZeroLayerHeaders.CONTENT_TYPE, "application/json"));
                            }
                            return new Hostile(b.label() + " " + describe(h), key, b.value(), all);
                        });
    }

    private record Body(String label, byte[] value, boolean json) {}

    // ---- Avro ----

    private Arbitrary<Body> avro() {
        return Combinators.combine(requests(), mutations())
                .as(
                        (request, mutation) -> {
                            byte[] bytes = AVRO.encode(request);
                            return new Body("avro+" + mutation.name, mutation.apply(bytes), false);
                        });
    }

    private static Arbitrary<AnalysisRequest> requests() {
        Arbitrary<String> id =
                Arbitraries.oneOf(
                        Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(12),
                        Arbitraries.just(""),
                        Arbitraries.strings().ofMaxLength(400));
        Arbitrary<Long> millis =
                Arbitraries.oneOf(
                        Arbitraries.longs(),
                        Arbitraries.just(System.currentTimeMillis()),
                        Arbitraries.of(Long.MIN_VALUE, Long.MAX_VALUE, -1L, 0L, 253402300800000L));
        Arbitrary<Map<String, String>> attributes =
                Arbitraries.maps(
                                Arbitraries.strings().ofMaxLength(20),
                                Arbitraries.strings().ofMaxLength(50))
                        .ofMaxSize(4);
        return Combinators.combine(id, id, prompts(), millis, millis.injectNull(0.5), attributes)
                .as(
                        (requestId, tenant, prompt, submitted, deadline, attrs) ->
                                AnalysisRequest.newBuilder()
                                        .setRequestId(requestId)
                                        .setTenantId(tenant)
                                        .setPrompt(prompt)
                                        .setSubmittedAt(Instant.ofEpochMilli(submitted))
                                        .setDeadline(
                                                deadline == null
                                                        ? null
                                                        : Instant.ofEpochMilli(deadline))
                                        .setAttributes(attrs)
                                        .build());
    }

    /** Prompts of tags and text, well-formed or not. */
    private static Arbitrary<String> prompts() {
        Arbitrary<String> fragment =
                Arbitraries.of(
                        "<task:summarize>",
                        "<task:embed>",
                        "<task:classify>",
                        "<task:answer>",
                        "<output_format:json>",
                        "<labels>a, b</labels>",
                        "<question>Why?</question>",
                        "<document format=\"text\">",
                        "</document>",
                        "<section:abstract>",
                        "</section>",
                        "<",
                        ">",
                        "</",
                        "<x y='",
                        "The pump failed. ",
                        "It was replaced. ",
                        "\u0000",
                        "\uD83D\uDE00");
        return Arbitraries.oneOf(
                fragment.list().ofMaxSize(30).map(l -> String.join("", l)),
                Arbitraries.strings().ofMaxLength(200));
    }

    private record Mutation(String name, java.util.function.UnaryOperator<byte[]> op) {
        byte[] apply(byte[] bytes) {
            return op.apply(bytes);
        }
    }

    private static Arbitrary<Mutation> mutations() {
        Arbitrary<Integer> at = Arbitraries.integers().between(0, 10_000);
        return Arbitraries.oneOf(
                Arbitraries.just(new Mutation("whole", b -> b)),
                Combinators.combine(at, Arbitraries.bytes())
                        .as(
                                (i, v) ->
                                        new Mutation(
                                                "flip",
                                                b -> {
                                                    byte[] c = b.clone();
                                                    c[i % c.length] ^= (byte) (v | 1);
                                                    return c;
                                                })),
                at.map(i -> new Mutation("cut", b -> Arrays.copyOf(b, i % b.length))),
                Combinators.combine(at, Arbitraries.bytes().array(byte[].class).ofMaxSize(16))
                        .as(
                                (i, extra) ->
                                        new Mutation(
                                                "insert",
                                                b -> {
                                                    int p = i % (b.length + 1);
                                                    byte[] c = new byte[b.length + extra.length];
                                                    System.arraycopy(b, 0, c, 0, p);
                                                    System.arraycopy(extra, 0, c, p, extra.length);
                                                    System.arraycopy(
                                                            b,
                                                            p,
                                                            c,
                                                            p + extra.length,
                                                            b.length - p);
                                                    return c;
                                                })));
    }

    // ---- JSON ----

    private static Arbitrary<Body> json() {
        Arbitrary<String> value =
                Arbitraries.oneOf(
                        Arbitraries.strings().ofMaxLength(30).map(HostileRecords::quoted),
                        prompts().map(HostileRecords::quoted),
                        Arbitraries.longs().map(String::valueOf),
                        Arbitraries.of(
                                "null",
                                "true",
                                "[]",
                                "{}",
                                "1e400",
                                "-0",
                                "\"+1000000000-01-01T00:00:00Z\"",
                                "\"-999999999-01-01T00:00:00Z\"",
                                "\"2026-12-05T00:00:00Z\"",
                                "\"not a time\"",
                                "9223372036854775807",
                                "99999999999999999999999",
                                "\"\\ud800\"",
                                "[".repeat(2000)));
        List<String> fields =
                List.of("requestId", "tenantId", "prompt", "submittedAt", "deadline", "attributes");
        Arbitrary<Map<String, String>> object =
                Arbitraries.maps(Arbitraries.of(fields), value).ofMaxSize(fields.size());
        Arbitrary<String> text =
                object.map(
                        m -> {
                            Map<String, String> all = new LinkedHashMap<>(m);
                            all.putIfAbsent("requestId", "\"j\"");
                            all.putIfAbsent("tenantId", "\"t\"");
                            all.putIfAbsent("prompt", "\"<task:embed> x\"");
                            StringBuilder s = new StringBuilder("{");
                            all.forEach(
                                    (k, v) ->
                                            s.append('"')
                                                    .append(k)
                                                    .append("\":")
                                                    .append(v)
                                                    .append(','));
                            s.setLength(s.length() - 1);
                            return s.append('}').toString();
                        });
        return Arbitraries.oneOf(
                text.map(t -> new Body("json", utf8(t), true)),
                Combinators.combine(text, Arbitraries.integers().between(0, 200))
                        .as(
                                (t, cut) ->
                                        new Body(
                                                "json-cut",
                                                utf8(t.substring(0, Math.min(cut, t.length()))),
                                                true)),
                Arbitraries.of("[1,2]", "\"a string\"", "42", "", "{", "{\"requestId\":}")
                        .map(t -> new Body("json-not-an-object", utf8(t), true)));
    }

    private static Arbitrary<Body> raw() {
        return Arbitraries.bytes()
                .array(byte[].class)
                .ofMaxSize(300)
                .map(b -> new Body("bytes", b, false));
    }

    // ---- headers ----

    private Arbitrary<List<Header>> headers() {
        Arbitrary<Header> replyTopic =
                Arbitraries.oneOf(
                                Arbitraries.of(replyTopics),
                                Arbitraries.of(
                                        "../x",
                                        "",
                                        " ",
                                        ".",
                                        "..",
                                        "r".repeat(300),
                                        "zerolayer.replies.never-created",
                                        "a topic",
                                        "tópico"),
                                Arbitraries.strings().ofMaxLength(40))
                        .map(t -> header(ZeroLayerHeaders.REPLY_TOPIC, t));
        Arbitrary<Header> contentType =
                Arbitraries.of(
                                "application/json",
                                "APPLICATION/JSON; charset=utf-8",
                                "application/avro",
                                "text/plain",
                                "")
                        .map(t -> header(ZeroLayerHeaders.CONTENT_TYPE, t));
        Arbitrary<Header> any =
                Combinators.combine(
                                Arbitraries.strings().ofMaxLength(20),
                                Arbitraries.bytes().array(byte[].class).ofMaxSize(64))
                        .as(Header::new);
        Arbitrary<Header> bigCorrelation =
                Arbitraries.just(new Header(ZeroLayerHeaders.CORRELATION_ID, new byte[64 * 1024]));
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(4, replyTopic),
                        net.jqwik.api.Tuple.of(2, contentType),
                        net.jqwik.api.Tuple.of(2, any),
                        net.jqwik.api.Tuple.of(1, bigCorrelation))
                .list()
                .ofMaxSize(4);
    }

    private static String describe(List<Header> headers) {
        StringBuilder s = new StringBuilder("[");
        for (Header h : headers) {
            String v = new String(h.value(), StandardCharsets.UTF_8);
            s.append(h.name())
                    .append('=')
                    .append(v.length() > 30 ? v.substring(0, 30) + "…" : v)
                    .append(' ');
        }
        return s.append(']').toString();
    }

    private static Header header(String name, String value) {
        return new Header(name, utf8(value));
    }

    private static String quoted(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

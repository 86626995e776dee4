package io.zerolayer.operators.flink;

import static io.zerolayer.operators.flink.FlinkFunctionsTest.ADMISSION;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.CODEC;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.CONTRACTS;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.DEGRADE;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.classifierHarness;
import static io.zerolayer.operators.flink.FlinkFunctionsTest.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.door.RequestAuthenticator;
import io.zerolayer.operators.door.UnauthenticatedRequestException;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.kafka.DeadLetter;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.auth.TenantCredentials;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.flink.streaming.runtime.streamrecord.StreamRecord;
import org.apache.flink.streaming.util.KeyedBroadcastOperatorTestHarness;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The classifier's door: only a record its tenant signed, recently, once, is worked on; anything
 * else is a dead letter naming why, and is never answered.
 */
class RequestAuthenticationTest {
    static final byte[] ACME_KEY = key(1);
    static final byte[] ACME_NEXT_KEY = key(2);
    static final byte[] GLOBEX_KEY = key(3);
    static final TenantCredentials ACME = TenantCredentials.of("acme", ACME_KEY);

    @TempDir Path dir;

    @Test
    void aSignedRequestIsRouted() throws Exception {
        try (var h = harness(tenants(Map.of("acme", ACME_KEY)))) {
            h.processElement(signed(ACME, "r-1", "<task:embed> hello"), 0);

            assertThat(h.extractOutputValues())
                    .extracting(r -> r.request().getRequestId())
                    .containsExactly("r-1");
            assertThat(deadLetters(h)).isEmpty();
        }
    }

    @Test
    void unsignedForgedUnknownStaleAndAlteredRecordsAreDeadLetteredWithTheirReason()
            throws Exception {
        try (var h = harness(tenants(Map.of("acme", ACME_KEY, "globex", GLOBEX_KEY)))) {
            long now = System.currentTimeMillis();
            h.processElement(unsigned("no-sig", "<task:embed> x"), 0);
            // a prompt that breaks its contract: still no REJECTED reply to an unverified sender
            h.processElement(unsigned("no-sig-bad-prompt", "<task:embedd> x"), 0);
            h.processElement(
                    signed(TenantCredentials.of("acme", GLOBEX_KEY), "forged", "<task:embed> x"),
                    0);
            h.processElement(
                    signed(TenantCredentials.of("initech", ACME_KEY), "unknown", "<task:embed> x"),
                    0);
            h.processElement(signed(ACME, "stale", "<task:embed> x", now - 10 * 60_000, null), 0);
            RawRecord redirected =
                    signed(ACME, "redirected", "<task:embed> x", now, "zerolayer.replies.acme");
            setHeader(redirected, ZeroLayerHeaders.REPLY_TOPIC, "replies.attacker");
            h.processElement(redirected, 0);
            RawRecord altered = signed(ACME, "altered", "<task:embed> x");
            altered.value = CODEC.encode(request("altered", "<task:embed> something else", "acme"));
            h.processElement(altered, 0);
            RawRecord notMillis = signed(ACME, "not-millis", "<task:embed> x");
            setHeader(notMillis, "x-zerolayer-timestamp", "yesterday");
            h.processElement(notMillis, 0);

            assertThat(h.extractOutputValues()).isEmpty();
            assertThat(h.getSideOutput(DecodeAndClassifyFunction.REJECTIONS)).isNullOrEmpty();
            assertThat(deadLetters(h))
                    .extracting(d -> d.exceptionMessage)
                    .satisfiesExactly(
                            m -> assertThat(m).startsWith("unsigned: the record has no"),
                            m -> assertThat(m).startsWith("unsigned: "),
                            m -> assertThat(m).startsWith("bad-signature: "),
                            m -> assertThat(m).startsWith("unknown-tenant: tenant 'initech'"),
                            m -> assertThat(m).startsWith("clock-skew: signed at"),
                            m -> assertThat(m).startsWith("bad-signature: "),
                            m -> assertThat(m).startsWith("bad-signature: "),
                            m -> assertThat(m).contains("is not epoch milliseconds"));
            assertThat(deadLetters(h))
                    .extracting(d -> d.exceptionClass)
                    .containsOnly(UnauthenticatedRequestException.class.getName());
        }
    }

    @Test
    void aCopyOfASignedRecordIsRefusedAsReplayedWhileAForgedOneCannotBlockItsId() throws Exception {
        try (var h = harness(tenants(Map.of("acme", ACME_KEY)))) {
            // a forger sends acme's next request id first: refused, and the id stays free
            h.processElement(
                    signed(TenantCredentials.of("acme", GLOBEX_KEY), "r-7", "<task:embed> x"), 0);
            RawRecord genuine = signed(ACME, "r-7", "<task:embed> x");
            h.processElement(genuine, 0);
            RawRecord copy = copy(genuine);
            copy.partition = 3;
            copy.offset = 99;
            h.processElement(copy, 0);
            // re-signed by acme itself with a new timestamp: still the same request id
            h.processElement(
                    signed(ACME, "r-7", "<task:embed> x", System.currentTimeMillis() + 1, null), 0);

            assertThat(h.extractOutputValues())
                    .extracting(r -> r.request().getRequestId())
                    .containsExactly("r-7");
            assertThat(deadLetters(h))
                    .extracting(d -> d.exceptionMessage)
                    .satisfiesExactly(
                            m -> assertThat(m).startsWith("bad-signature: "),
                            m -> assertThat(m).startsWith("replayed: tenant 'acme' already sent"),
                            m -> assertThat(m).startsWith("replayed: "));
        }
    }

    @Test
    void bothKeysOfARotationVerifyAndTheBrokersAppendTimeIsTheReference() throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(
                file,
                """
                version: 1
                tenants:
                  acme:
                    keys:
                      old: "%s"
                      new: "%s"
                """
                        .formatted(hex(ACME_KEY), hex(ACME_NEXT_KEY)));
        try (var h = harness(file)) {
            h.processElement(signed(ACME, "with-old", "<task:embed> x"), 0);
            h.processElement(
                    signed(
                            TenantCredentials.of("acme", ACME_NEXT_KEY),
                            "with-new",
                            "<task:embed> x"),
                    0);
            // signed an hour ago, appended a minute later: a backlog, not a replay
            long signedAt = System.currentTimeMillis() - 3_600_000;
            RawRecord backlog = signed(ACME, "backlog", "<task:embed> x", signedAt, null);
            backlog.logAppendTime = true;
            backlog.timestamp = signedAt + 60_000;
            h.processElement(backlog, 0);
            RawRecord late = signed(ACME, "appended-late", "<task:embed> x", signedAt, null);
            late.logAppendTime = true;
            late.timestamp = signedAt + 10 * 60_000;
            h.processElement(late, 0);

            assertThat(h.extractOutputValues())
                    .extracting(r -> r.request().getRequestId())
                    .containsExactly("with-old", "with-new", "backlog");
            assertThat(deadLetters(h))
                    .extracting(d -> d.exceptionMessage)
                    .singleElement()
                    .asString()
                    .startsWith("clock-skew: ")
                    .contains("the record's append time");
        }
    }

    @Test
    void reloadTenantsReadsTheFileAgainAndABrokenFileLeavesTheTenantsInForce() throws Exception {
        Path file = tenants(Map.of("acme", ACME_KEY));
        try (var h = harness(file)) {
            TenantCredentials globex = TenantCredentials.of("globex", GLOBEX_KEY);
            h.processElement(signed(globex, "g-1", "<task:embed> x"), 0);

            Files.writeString(
                    file, TenantRegistry.yamlOf(Map.of("acme", ACME_KEY, "globex", GLOBEX_KEY)));
            h.processBroadcastElement(new ControlCommand(ControlCommand.RELOAD_TENANTS, null), 0);
            h.processElement(signed(globex, "g-2", "<task:embed> x"), 0);

            Files.writeString(file, "version: 1\ntenants: {acme: {keys: {k1: 'short'}}}\n");
            h.processBroadcastElement(
                    ControlCommand.parse(
                            "{\"command\":\"reload-tenants\"}".getBytes(StandardCharsets.UTF_8)),
                    0);
            h.processElement(signed(globex, "g-3", "<task:embed> x"), 0);
            h.processElement(signed(ACME, "a-1", "<task:embed> x"), 0);

            assertThat(h.extractOutputValues())
                    .extracting(r -> r.request().getRequestId())
                    .containsExactly("g-2", "g-3", "a-1");
            assertThat(deadLetters(h))
                    .extracting(d -> d.exceptionMessage)
                    .singleElement()
                    .asString()
                    .startsWith("unknown-tenant: tenant 'globex'");
        }
    }

    @Test
    void theTierFloorIsTheRequestsOrTheTasksNeverBelowTheTenantsAndLevel3IsExact()
            throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(
                file,
                """
                version: 1
                tenants:
                  acme:
                    keys: {k: "%s"}
                    quality: best
                  globex:
                    keys: {k: "%s"}
                    compliance-level: 3
                """
                        .formatted(hex(ACME_KEY), hex(GLOBEX_KEY)));
        TenantCredentials globex = TenantCredentials.of("globex", GLOBEX_KEY);
        RequestAuthenticator authenticator = new RequestAuthenticator(Duration.ofMinutes(5));
        try (var h =
                classifierHarness(
                        new DecodeAndClassifyFunction(
                                        CONTRACTS,
                                        null,
                                        ADMISSION,
                                        DEGRADE,
                                        new HotGraphSharder(2, 128, 25, 0.5))
                                .withTenants(file.toString(), null)
                                .withAuthentication(authenticator, authenticator.replayWindow())
                                .withSplitting(0, ExecutionSettings.DEFAULTS))) {
            h.processElement(signedWith(ACME, "acme-default", null), 0);
            h.processElement(signedWith(ACME, "acme-fast", "fast"), 0);
            h.processElement(signedWith(globex, "globex-default", null), 0);
            h.processElement(signedWith(globex, "globex-fast", "FAST"), 0);
            h.processElement(signedWith(globex, "globex-bogus", "cheapest"), 0);

            Map<String, io.zerolayer.operators.compiler.CompilableStructure> structures =
                    new java.util.HashMap<>();
            h.extractOutputValues()
                    .forEach(
                            r ->
                                    structures.put(
                                            r.request().getRequestId(), r.decision().structure()));
            assertThat(structures).hasSize(5);
            var best = io.zerolayer.operators.quality.QualityFloor.BEST;
            var balanced = io.zerolayer.operators.quality.QualityFloor.BALANCED;
            var fast = io.zerolayer.operators.quality.QualityFloor.FAST;
            assertThat(structures.get("acme-default").quality()).isEqualTo(best);
            assertThat(structures.get("acme-fast").quality())
                    .as("never below the tenant's")
                    .isEqualTo(best);
            assertThat(structures.get("globex-default").quality())
                    .as("the task's")
                    .isEqualTo(balanced);
            assertThat(structures.get("globex-fast").quality()).isEqualTo(fast);
            assertThat(structures.get("globex-bogus").quality()).isEqualTo(balanced);
            assertThat(structures.get("acme-default").exact()).isFalse();
            assertThat(structures.get("globex-default").exact()).as("level 3").isTrue();
            assertThat(deadLetters(h)).isEmpty();
        }
    }

    private static RawRecord signedWith(TenantCredentials who, String id, String quality) {
        AnalysisRequest r =
                request(id, "<task:summarize> The tenant pays rent monthly.", who.tenantId());
        if (quality != null) {
            r.setAttributes(Map.of("quality", quality));
        }
        return signed(who, r, System.currentTimeMillis(), null);
    }

    private KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest>
            harness(Path tenantsFile) throws Exception {
        RequestAuthenticator authenticator = new RequestAuthenticator(Duration.ofMinutes(5));
        return classifierHarness(
                new DecodeAndClassifyFunction(
                                CONTRACTS,
                                null,
                                ADMISSION,
                                DEGRADE,
                                new HotGraphSharder(2, 128, 25, 0.5))
                        .withTenants(tenantsFile.toString(), null)
                        .withAuthentication(authenticator, authenticator.replayWindow()));
    }

    private Path tenants(Map<String, byte[]> keys) throws Exception {
        Path file = dir.resolve("tenants.yaml");
        Files.writeString(file, TenantRegistry.yamlOf(keys));
        return file;
    }

    static RawRecord signed(TenantCredentials who, String id, String prompt) {
        return signed(who, id, prompt, System.currentTimeMillis(), null);
    }

    static RawRecord signed(
            TenantCredentials who, String id, String prompt, long timestamp, String replyTopic) {
        return signed(who, request(id, prompt, who.tenantId()), timestamp, replyTopic);
    }

    private static RawRecord signed(
            TenantCredentials who, AnalysisRequest request, long timestamp, String replyTopic) {
        String id = request.getRequestId();
        byte[] value = CODEC.encode(request);
        RecordHeaders headers = new RecordHeaders();
        if (replyTopic != null) {
            headers.add(ZeroLayerHeaders.REPLY_TOPIC, replyTopic.getBytes(StandardCharsets.UTF_8));
        }
        who.sign(headers, id, value, timestamp);
        RawRecord raw = FlinkFunctionsTest.raw(value);
        raw.setHeaders(headers.toArray());
        return raw;
    }

    private static RawRecord unsigned(String id, String prompt) {
        return FlinkFunctionsTest.raw(CODEC.encode(request(id, prompt, "acme")));
    }

    private static AnalysisRequest request(String id, String prompt, String tenant) {
        AnalysisRequest r = FlinkFunctionsTest.request(id, prompt);
        r.setTenantId(tenant);
        return r;
    }

    private static void setHeader(RawRecord raw, String name, String value) {
        for (int i = 0; i < raw.headerKeys.length; i++) {
            if (raw.headerKeys[i].equals(name)) {
                raw.headerValues[i] = value.getBytes(StandardCharsets.UTF_8);
            }
        }
    }

    private static RawRecord copy(RawRecord r) {
        RawRecord c = FlinkFunctionsTest.raw(r.value.clone());
        c.headerKeys = r.headerKeys.clone();
        c.headerValues = r.headerValues.clone();
        return c;
    }

    private static List<DeadLetter> deadLetters(
            KeyedBroadcastOperatorTestHarness<String, RawRecord, ControlCommand, RoutedRequest> h) {
        var letters = h.getSideOutput(DecodeAndClassifyFunction.DEAD_LETTERS);
        return letters == null ? List.of() : letters.stream().map(StreamRecord::getValue).toList();
    }

    private static byte[] key(int seed) {
        byte[] k = new byte[32];
        for (int i = 0; i < k.length; i++) {
            k[i] = (byte) (seed * 31 + i);
        }
        return k;
    }

    private static String hex(byte[] k) {
        return HexFormat.of().formatHex(k);
    }
}

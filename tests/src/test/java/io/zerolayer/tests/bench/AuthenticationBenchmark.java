package io.zerolayer.tests.bench;

import io.zerolayer.operators.door.RequestAuthenticator;
import io.zerolayer.operators.kafka.RawRecord;
import io.zerolayer.operators.tenants.TenantKey;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What verifying a tenant's signature costs a request in the job: reading the ids it claims (what
 * the job keys it by) and checking its HMAC-SHA256 over the canonical string, which hashes the
 * whole value. On a 1 KB ticket and a 100 KB paper. Run with {@code mvn -q -pl tests -am -Pbench
 * verify}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgs = {"-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class AuthenticationBenchmark {
    @Param({"1KB", "100KB"})
    public String size;

    private final SingleObjectCodec<AnalysisRequest> codec =
            SingleObjectCodec.of(AnalysisRequest.class);
    private TenantRegistry registry;
    private RequestAuthenticator authenticator;
    private RawRecord record;

    @Setup
    public void setUp() {
        byte[] key = new byte[32];
        registry = TenantRegistry.of("acme", key);
        authenticator = new RequestAuthenticator(Duration.ofMinutes(5));
        AnalysisRequest request =
                AnalysisRequest.newBuilder()
                        .setRequestId("r-1")
                        .setTenantId("acme")
                        .setPrompt(
                                "<task:summarize>"
                                        + ClassifyBenchmark.prompt(
                                                size.equals("1KB") ? 1 << 10 : 100 << 10))
                        .setSubmittedAt(Instant.now())
                        .setAttributes(Map.of())
                        .build();
        record = new RawRecord();
        record.value = codec.encode(request);
        RecordHeaders headers = new RecordHeaders();
        registry.credentials("acme").sign(headers, "r-1", record.value, System.currentTimeMillis());
        record.setHeaders(headers.toArray());
    }

    /** The ids a record claims, as the job keys it before the classifier. */
    @Benchmark
    public String claimedIds() {
        return io.zerolayer.schemas.serde.ClaimedIds.of(record.value, false)[1];
    }

    /** The signature checked against the tenant's key. */
    @Benchmark
    public TenantKey verify() {
        return authenticator.verify(record, "acme", "r-1", registry, System.currentTimeMillis());
    }
}

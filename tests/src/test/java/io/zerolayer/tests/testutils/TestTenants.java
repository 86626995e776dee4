package io.zerolayer.tests.testutils;

import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.auth.RequestSignature;
import io.zerolayer.schemas.auth.TenantCredentials;
import io.zerolayer.schemas.serde.SingleObjectCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The tenants the ITCases send as, in one tenants file the test jobs verify against
 * (zerolayer.auth.mode hmac, the default): requests are signed as a real client signs them, so
 * every test runs through the job's real door.
 */
public final class TestTenants {
    /** Every tenant id a test request names. */
    public static final List<String> IDS =
            List.of(
                    "it", "acme", "globex", "initech", "kcat", "hostile", "t", "bench", "batch",
                    "demo", "flood", "quiet");

    private static final SingleObjectCodec<AnalysisRequest> CODEC =
            SingleObjectCodec.of(AnalysisRequest.class);
    private static Path file;
    private static TenantRegistry registry;

    private TestTenants() {}

    /** The tenants file, written once per JVM. */
    public static synchronized Path file() {
        if (file == null) {
            Map<String, byte[]> keys = new LinkedHashMap<>();
            IDS.forEach(id -> keys.put(id, key(id)));
            try {
                file = Files.createTempFile("zerolayer-test-tenants", ".yaml");
                file.toFile().deleteOnExit();
                Files.writeString(file, TenantRegistry.yamlOf(keys));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            registry = TenantRegistry.load(file);
        }
        return file;
    }

    public static synchronized TenantRegistry registry() {
        file();
        return registry;
    }

    public static TenantCredentials credentials(String tenant) {
        return registry().credentials(tenant);
    }

    /** A test tenant's key: derived from its id, so every run and process agrees. */
    public static byte[] key(String tenant) {
        return java.util.HexFormat.of()
                .parseHex(RequestSignature.sha256Hex(("zerolayer-test:" + tenant).getBytes()));
    }

    /**
     * Signs a record whose value is a request of a tenant in {@code registry} (Avro, or JSON by its
     * content-type header) with that tenant's key; any other record is left as it is.
     */
    public static void signIfRequest(
            ProducerRecord<byte[], byte[]> record, TenantRegistry tenants) {
        Header type = record.headers().lastHeader(ZeroLayerHeaders.CONTENT_TYPE);
        boolean json =
                type != null
                        && new String(type.value(), StandardCharsets.UTF_8)
                                .startsWith(ZeroLayerHeaders.JSON);
        // the ids only, as the job keys records: hostile bytes are not decoded here
        String[] ids =
                io.zerolayer.schemas.serde.ClaimedIds.of(
                        record.value() == null ? new byte[0] : record.value(), json);
        if (ids != null && tenants.tenant(ids[0]).isPresent()) {
            tenants.credentials(ids[0]).sign(record.headers(), ids[1], record.value());
        }
    }
}

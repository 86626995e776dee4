package io.zerolayer.client;

import io.zerolayer.schemas.ZeroLayerHeaders;
import io.zerolayer.schemas.auth.TenantCredentials;
import io.zerolayer.schemas.serde.ClaimedIds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Signs every request a producer sends as its tenant, from configuration alone, so that Spring's
 * {@code ReplyingKafkaTemplate}, a plain {@code KafkaProducer} or Kafka Connect need no code:
 *
 * <pre>
 * interceptor.classes=io.zerolayer.client.SigningProducerInterceptor
 * zerolayer.tenant=acme
 * zerolayer.tenant.key-file=/run/secrets/zerolayer-acme.key   # or ZEROLAYER_TENANT_KEY=hex
 * </pre>
 *
 * The producer's values must be the request's bytes as sent: {@code byte[]} (Avro single-object
 * encoding, or JSON with header {@code content-type: application/json}) or a JSON {@code String}
 * written as UTF-8 ({@code StringSerializer}'s default; the interceptor adds {@code content-type:
 * application/json} when the record has none). An interceptor runs before the serializer and sees
 * what the record holds, which is why other value types cannot be signed. Set {@code
 * kafka_replyTopic} before sending (Spring's template does): the signature covers it.
 *
 * <p>Kafka logs and swallows what an interceptor throws and sends the record as it was; a record
 * this cannot sign is logged at ERROR here too, and the job dead-letters it as unsigned.
 */
public final class SigningProducerInterceptor implements ProducerInterceptor<Object, Object> {
    /** The tenant every record is signed for. */
    public static final String TENANT = "zerolayer.tenant";

    /** A file holding the tenant's hex key (whitespace around it is ignored). */
    public static final String KEY_FILE = "zerolayer.tenant.key-file";

    /** The environment variable with the tenant's hex key, when no key file is configured. */
    public static final String KEY_ENV = "ZEROLAYER_TENANT_KEY";

    private static final Logger LOG = LoggerFactory.getLogger(SigningProducerInterceptor.class);

    private TenantCredentials credentials;

    @Override
    public void configure(Map<String, ?> configs) {
        Object tenant = configs.get(TENANT);
        if (tenant == null || tenant.toString().isBlank()) {
            throw new ConfigException(TENANT + " is required: the tenant whose key signs requests");
        }
        Object keyFile = configs.get(KEY_FILE);
        String hexKey;
        if (keyFile != null) {
            try {
                hexKey = Files.readString(Path.of(keyFile.toString())).strip();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read " + KEY_FILE + " " + keyFile, e);
            }
        } else {
            hexKey = System.getenv(KEY_ENV);
            if (hexKey == null || hexKey.isBlank()) {
                throw new ConfigException(
                        "Set " + KEY_FILE + " or the environment variable " + KEY_ENV);
            }
        }
        credentials = TenantCredentials.of(tenant.toString(), hexKey.strip());
    }

    @Override
    public ProducerRecord<Object, Object> onSend(ProducerRecord<Object, Object> record) {
        byte[] value = bytes(record.value());
        boolean json = isJson(record);
        String[] ids = value == null ? null : ClaimedIds.of(value, json);
        if (ids == null) {
            LOG.error(
                    "Cannot sign a record to {}: its value is not a request's bytes (byte[], or a"
                            + " JSON String) with a requestId; it goes unsigned",
                    record.topic());
            return record;
        }
        if (!ids[0].equals(credentials.tenantId())) {
            LOG.error(
                    "Request {} names tenant '{}', but this producer signs for '{}': the job will"
                            + " refuse it",
                    ids[1],
                    ids[0],
                    credentials.tenantId());
        }
        if (record.value() instanceof String
                && record.headers().lastHeader(ZeroLayerHeaders.CONTENT_TYPE) == null) {
            // the job reads a value as JSON only when the record says so
            record.headers()
                    .add(
                            ZeroLayerHeaders.CONTENT_TYPE,
                            ZeroLayerHeaders.JSON.getBytes(StandardCharsets.UTF_8));
        }
        credentials.sign(record.headers(), ids[1], value);
        return record;
    }

    private static byte[] bytes(Object value) {
        if (value instanceof byte[] b) {
            return b;
        }
        if (value instanceof String s) {
            return s.getBytes(StandardCharsets.UTF_8);
        }
        return null;
    }

    private static boolean isJson(ProducerRecord<?, ?> record) {
        if (record.value() instanceof String) {
            return true;
        }
        Header type = record.headers().lastHeader(ZeroLayerHeaders.CONTENT_TYPE);
        return type != null
                && new String(type.value(), StandardCharsets.UTF_8)
                        .startsWith(ZeroLayerHeaders.JSON);
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {}

    @Override
    public void close() {}
}

package io.zerolayer.jobs;

import io.zerolayer.operators.kafka.KafkaConnection;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.DeliveryGuarantee;
import org.apache.flink.connector.kafka.lineage.KafkaDatasetFacetProvider;
import org.apache.flink.connector.kafka.sink.KafkaRecordSerializationSchema;
import org.apache.flink.connector.kafka.sink.KafkaSink;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;

/**
 * The job's Kafka sinks: exactly once for the bill's records, the graphs, the audit chain and the
 * dead letters; replies as {@link ReplyDelivery} says.
 */
public final class JobSinks {
    /** How long a transactional sink's producer waits to fill a request (see {@link #sink}). */
    static final java.time.Duration TRANSACTIONAL_LINGER = java.time.Duration.ofMillis(100);

    /** The most a transactional sink's producer puts in one partition's batch. */
    static final int TRANSACTIONAL_BATCH_BYTES = 512 * 1024;

    private JobSinks() {}

    /** A sink of the bill's records, the graphs or the dead letters: always exactly once. */
    static <T> KafkaSink<T> sink(
            Configuration conf,
            KafkaConnection kafka,
            String name,
            KafkaRecordSerializationSchema<T> schema) {
        return sink(conf, kafka, name, schema, ReplyDelivery.EXACTLY_ONCE);
    }

    /**
     * A Kafka sink. Exactly once: transactions that commit with the checkpoint. At least once: an
     * idempotent producer that sends each record at once ({@code linger.ms} 0) and flushes before
     * each checkpoint completes, so nothing a checkpoint covers is lost.
     *
     * @param name names the sink's transactional ids, after {@link
     *     PipelineOptions#TRANSACTIONAL_ID_PREFIX}
     */
    public static <T> KafkaSink<T> sink(
            Configuration conf,
            KafkaConnection kafka,
            String name,
            KafkaRecordSerializationSchema<T> schema,
            ReplyDelivery delivery) {
        var builder =
                KafkaSink.<T>builder()
                        .setBootstrapServers(kafka.bootstrapServers())
                        .setKafkaProducerConfig(shared(kafka))
                        .setRecordSerializer(schema)
                        .setProperty(
                                "max.request.size",
                                String.valueOf(conf.get(KafkaOptions.MAX_RECORD_SIZE).getBytes()))
                        // a record larger than the producer's buffer fails however large
                        // max.request.size is; the buffer is allocated as records need it
                        .setProperty(
                                "buffer.memory",
                                String.valueOf(
                                        Math.max(
                                                32L << 20,
                                                conf.get(KafkaOptions.MAX_RECORD_SIZE).getBytes()
                                                        + (1L << 20))));
        if (delivery == ReplyDelivery.AT_LEAST_ONCE) {
            return builder.setDeliveryGuarantee(DeliveryGuarantee.AT_LEAST_ONCE)
                    .setProperty("enable.idempotence", "true")
                    .setProperty("acks", "all")
                    .setProperty("linger.ms", "0")
                    .build();
        }
        return builder.setDeliveryGuarantee(DeliveryGuarantee.EXACTLY_ONCE)
                // nothing in a transaction is visible before the checkpoint commits it, so the
                // producer may wait to send fewer, larger requests (the broker's work is per
                // request); the flush before each checkpoint sends whatever still waits
                .setProperty("linger.ms", String.valueOf(TRANSACTIONAL_LINGER.toMillis()))
                .setProperty("batch.size", String.valueOf(TRANSACTIONAL_BATCH_BYTES))
                .setTransactionalIdPrefix(
                        conf.get(KafkaOptions.TRANSACTIONAL_ID_PREFIX) + "-" + name)
                .setTransactionNamingStrategy(namingStrategy(schema))
                .setProperty(
                        "transaction.timeout.ms",
                        String.valueOf(conf.get(KafkaOptions.TRANSACTION_TIMEOUT).toMillis()))
                .build();
    }

    /**
     * How a sink names its transactions. The broker keeps every transactional id it has seen for
     * transactional.id.expiration.ms (7 days by default); naming one per checkpoint, at 1 s
     * checkpoints, leaves 600 000 ids a sink writer a week. A sink whose topics are known (a list,
     * or for the replies the allow-list's pattern) reuses a few ids instead: on restart it finds
     * its lingering transactions by asking the broker which producers have open ones on those
     * topics. Reusing ids also makes the re-commit of an already committed transaction after a
     * restore a WARN the connector says is expected in recovery, where one-use ids log it as an
     * ERROR about data loss.
     */
    /** The client settings every client of the job shares, for a source's or sink's builder. */
    public static java.util.Properties shared(KafkaConnection kafka) {
        java.util.Properties p = new java.util.Properties();
        p.putAll(kafka.clientProperties());
        return p;
    }

    static TransactionNamingStrategy namingStrategy(KafkaRecordSerializationSchema<?> schema) {
        return schema instanceof KafkaDatasetFacetProvider
                ? TransactionNamingStrategy.POOLING
                : TransactionNamingStrategy.INCREMENTING;
    }
}

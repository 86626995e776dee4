package io.zerolayer.operators.flink;

import io.zerolayer.operators.kafka.RawRecord;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.record.TimestampType;

/** Copies each Kafka record into a {@link RawRecord}; never fails, whatever the bytes. */
public final class RawRecordDeserializationSchema
        implements KafkaRecordDeserializationSchema<RawRecord> {
    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<RawRecord> out) {
        RawRecord raw = new RawRecord();
        raw.topic = record.topic();
        raw.partition = record.partition();
        raw.offset = record.offset();
        raw.timestamp = record.timestamp();
        raw.logAppendTime = record.timestampType() == TimestampType.LOG_APPEND_TIME;
        raw.key = record.key();
        raw.value = record.value();
        raw.setHeaders(record.headers().toArray());
        out.collect(raw);
    }

    @Override
    public TypeInformation<RawRecord> getProducedType() {
        return TypeInformation.of(RawRecord.class);
    }
}

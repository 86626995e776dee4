package io.zerolayer.operators.flink;

import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Control topic records → {@link ControlCommand}; never fails on bad input. */
public final class ControlCommandDeserializationSchema
        implements KafkaRecordDeserializationSchema<ControlCommand> {
    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<ControlCommand> out) {
        out.collect(ControlCommand.parse(record.value()));
    }

    @Override
    public TypeInformation<ControlCommand> getProducedType() {
        return TypeInformation.of(ControlCommand.class);
    }
}

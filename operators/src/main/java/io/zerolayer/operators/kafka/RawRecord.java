package io.zerolayer.operators.kafka;

import java.nio.charset.StandardCharsets;

/**
 * A Kafka record exactly as it arrived: bytes, headers and position. Decoding happens in an
 * operator, not in the source, so a record that cannot be decoded still reaches the dead-letter
 * topic untouched instead of failing the source.
 */
public class RawRecord {
    public String topic;
    public int partition;
    public long offset;
    public long timestamp;

    /**
     * Whether {@link #timestamp} is the broker's append time ({@code
     * message.timestamp.type=LogAppendTime}) rather than one the producer chose.
     */
    public boolean logAppendTime;

    public byte[] key;
    public byte[] value;

    /** Header names, parallel to {@link #headerValues}; order and repeats preserved. */
    public String[] headerKeys = new String[0];

    public byte[][] headerValues = new byte[0][];

    /**
     * What the job keys the record by before decoding it for good: the tenant and request id it
     * claims (set by the job's request keying).
     */
    public String requestKey;

    public RawRecord() {}

    /** Sets the headers from Kafka's, in order; a header without a value gets an empty one. */
    public void setHeaders(org.apache.kafka.common.header.Header[] headers) {
        headerKeys = new String[headers.length];
        headerValues = new byte[headers.length][];
        for (int i = 0; i < headers.length; i++) {
            headerKeys[i] = headers[i].key();
            headerValues[i] = headers[i].value() == null ? new byte[0] : headers[i].value();
        }
    }

    /** The last value of a header, or null. */
    public byte[] header(String name) {
        for (int i = headerKeys.length - 1; i >= 0; i--) {
            if (headerKeys[i].equals(name)) {
                return headerValues[i];
            }
        }
        return null;
    }

    public String headerString(String name) {
        byte[] v = header(name);
        return v == null ? null : new String(v, StandardCharsets.UTF_8);
    }
}

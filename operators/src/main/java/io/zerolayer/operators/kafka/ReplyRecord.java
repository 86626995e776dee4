package io.zerolayer.operators.kafka;

/**
 * A reply as the Kafka record the replies sink writes: its topic (resolved against the allow-list),
 * key, value and headers. Built by the job's reply encoder, so the sink itself cannot fail on a
 * record.
 */
public class ReplyRecord {
    public String topic;
    public byte[] key;
    public byte[] value;
    public String[] headerKeys = new String[0];
    public byte[][] headerValues = new byte[0][];

    public ReplyRecord() {}

    /** The value of the last header of this name, or null. */
    public byte[] header(String name) {
        for (int i = headerKeys.length - 1; i >= 0; i--) {
            if (headerKeys[i].equals(name)) {
                return headerValues[i];
            }
        }
        return null;
    }
}

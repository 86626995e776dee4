package io.zerolayer.jobs;

import java.util.Locale;

/**
 * What the job promises about replies ({@code zerolayer.replies.delivery-guarantee}). Cost records,
 * cost summaries, graph descriptors and dead letters are exactly once under either: the bill never
 * depends on this setting.
 */
public enum ReplyDelivery {
    /**
     * Every request is answered at least once. A reply is sent as soon as its batch finishes
     * (idempotent producer, no linger), never waiting for a checkpoint; after a restart, the
     * requests since the last checkpoint are answered again, each duplicate with the same {@code
     * kafka_correlationId} and {@code x-zerolayer-reply-id}, so a consumer can drop it.
     */
    AT_LEAST_ONCE,
    /**
     * Every request is answered exactly once to a {@code read_committed} consumer. Replies are
     * written in Kafka transactions that commit with the checkpoint after them, so a reply waits up
     * to a checkpoint interval.
     */
    EXACTLY_ONCE;

    /** The setting's text: {@code at-least-once} or {@code exactly-once}. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}

package io.zerolayer.operators.audit;

import io.zerolayer.operators.kafka.CommittedRecords;
import io.zerolayer.operators.kafka.KafkaConnection;
import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.AuditRecordKind;
import java.io.Serializable;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The head of every tenant's chain as the audit topic holds it: the committed entry with the
 * highest sequence number per tenant. Where a job starts without the chain heads in its state (a
 * new job on an existing audit topic, or one started without its savepoint), its chains continue
 * from these instead of starting again at 1.
 */
public interface CommittedChainHeads extends Serializable {
    /** Tenant id → its chain's head entry. */
    Map<String, AuditEntry> read();

    /** None: every chain starts at 1 (a job whose audit topic is new). */
    CommittedChainHeads NONE = Map::of;

    /**
     * The heads on {@code topic}, read to its end within {@code timeout}.
     *
     * @throws IllegalStateException when it cannot be read to its end: guessing would fork a chain
     */
    static CommittedChainHeads onTopic(KafkaConnection kafka, String topic, Duration timeout) {
        return () -> {
            Map<String, AuditEntry> heads = new HashMap<>();
            boolean complete =
                    CommittedRecords.forEach(
                            kafka,
                            topic,
                            AuditEntry.class,
                            timeout,
                            (entry, at) -> {
                                if (entry.getKind() == AuditRecordKind.ENTRY) {
                                    heads.merge(
                                            entry.getTenantId(),
                                            entry,
                                            (a, b) -> b.getSequence() > a.getSequence() ? b : a);
                                }
                            });
            if (!complete) {
                throw new IllegalStateException(
                        "Could not read the audit topic "
                                + topic
                                + " to its end within "
                                + timeout
                                + " to find where the tenants' chains continue");
            }
            return heads;
        };
    }
}

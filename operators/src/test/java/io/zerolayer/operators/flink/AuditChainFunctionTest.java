package io.zerolayer.operators.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.operators.audit.AuditChainVerifier;
import io.zerolayer.operators.audit.AuditChainVerifierTest;
import io.zerolayer.operators.audit.CommittedChainHeads;
import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.AuditRecordKind;
import io.zerolayer.schemas.audit.AuditChainHash;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.streaming.api.operators.KeyedProcessOperator;
import org.apache.flink.streaming.util.KeyedOneInputStreamOperatorTestHarness;
import org.junit.jupiter.api.Test;

class AuditChainFunctionTest {
    private static final long MINUTE = 60_000;

    private static KeyedOneInputStreamOperatorTestHarness<String, AuditEntry, AuditEntry> harness(
            OperatorSubtaskState restoreFrom) throws Exception {
        return harness(restoreFrom, CommittedChainHeads.NONE);
    }

    private static KeyedOneInputStreamOperatorTestHarness<String, AuditEntry, AuditEntry> harness(
            OperatorSubtaskState restoreFrom, CommittedChainHeads committed) throws Exception {
        var h =
                new KeyedOneInputStreamOperatorTestHarness<>(
                        new KeyedProcessOperator<>(new AuditChainFunction(3, MINUTE, committed)),
                        AuditEntry::getTenantId,
                        Types.STRING);
        h.setup();
        if (restoreFrom != null) {
            h.initializeState(restoreFrom);
        }
        h.open();
        return h;
    }

    private static AuditEntry unlinked(String tenant, String requestId) {
        return AuditChainVerifierTest.unlinked(tenant, requestId);
    }

    private static List<AuditEntry> kind(List<AuditEntry> records, AuditRecordKind kind) {
        return records.stream().filter(r -> r.getKind() == kind).toList();
    }

    private static AuditChainVerifier.Verdict verify(List<AuditEntry> topic, String tenant) {
        AuditChainVerifier verifier = new AuditChainVerifier();
        for (int i = 0; i < topic.size(); i++) {
            verifier.record(topic.get(i), "0/" + i);
        }
        return verifier.verify(tenant);
    }

    @Test
    void eachTenantsEntriesAreNumberedAndLinkedInTheirOwnChainAndAnchoredEveryThird()
            throws Exception {
        try (var h = harness(null)) {
            for (int i = 1; i <= 4; i++) {
                h.processElement(unlinked("bank", "b" + i), 0);
                h.processElement(unlinked("clinic", "c" + i), 0);
            }
            List<AuditEntry> out = h.extractOutputValues();
            List<AuditEntry> bank =
                    kind(out, AuditRecordKind.ENTRY).stream()
                            .filter(e -> e.getTenantId().equals("bank"))
                            .toList();
            assertThat(bank).extracting(AuditEntry::getSequence).containsExactly(1L, 2L, 3L, 4L);
            assertThat(bank.get(0).getPreviousHash()).isEqualTo(AuditChainHash.GENESIS);
            assertThat(bank.get(1).getPreviousHash()).isEqualTo(bank.get(0).getHash());
            assertThat(bank)
                    .allSatisfy(e -> assertThat(e.getHash()).isEqualTo(AuditChainHash.of(e)));
            // an anchor per tenant after its third entry, holding that entry's hash
            assertThat(kind(out, AuditRecordKind.ANCHOR))
                    .extracting(AuditEntry::getTenantId, AuditEntry::getSequence)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("bank", 3L),
                            org.assertj.core.groups.Tuple.tuple("clinic", 3L));
            assertThat(kind(out, AuditRecordKind.ANCHOR).get(0).getHash())
                    .isEqualTo(bank.get(2).getHash());
            assertThat(verify(out, "bank").intact()).isTrue();
            assertThat(verify(out, "clinic").intact()).isTrue();
        }
    }

    @Test
    void aChainThatStopsGrowingIsAnchoredAfterTheInterval() throws Exception {
        try (var h = harness(null)) {
            h.setProcessingTime(1_000);
            h.processElement(unlinked("bank", "b1"), 0);
            h.setProcessingTime(1_000 + MINUTE - 1);
            assertThat(kind(h.extractOutputValues(), AuditRecordKind.ANCHOR)).isEmpty();
            h.setProcessingTime(1_000 + MINUTE);
            assertThat(kind(h.extractOutputValues(), AuditRecordKind.ANCHOR))
                    .singleElement()
                    .satisfies(a -> assertThat(a.getSequence()).isEqualTo(1));
            // nothing new, no new anchor
            h.setProcessingTime(1_000 + 3 * MINUTE);
            assertThat(kind(h.extractOutputValues(), AuditRecordKind.ANCHOR)).hasSize(1);
        }
    }

    /**
     * What a failure does: the entries written after the last checkpoint are aborted with their
     * transaction, the head comes back from the checkpoint, and the requests answered again are
     * appended from there. The committed topic is one chain, whichever order the replay takes.
     */
    @Test
    void aReplayFromACheckpointContinuesTheChainAndNeverForksIt() throws Exception {
        List<AuditEntry> committed = new ArrayList<>();
        OperatorSubtaskState checkpoint;
        try (var h = harness(null)) {
            h.processElement(unlinked("bank", "b1"), 0);
            h.processElement(unlinked("bank", "b2"), 0);
            checkpoint = h.snapshot(1, 0);
            committed.addAll(h.extractOutputValues()); // committed with checkpoint 1
            h.processElement(unlinked("bank", "b3"), 0); // aborted: the task fails here
            h.processElement(unlinked("bank", "b4"), 0);
        }
        try (var h = harness(checkpoint)) {
            h.processElement(unlinked("bank", "b4"), 0); // answered again, in another order
            h.processElement(unlinked("bank", "b3"), 0);
            committed.addAll(h.extractOutputValues());
        }

        AuditChainVerifier.Verdict v = verify(committed, "bank");
        assertThat(v.problem()).isNull();
        assertThat(v.head()).isEqualTo(4);
        assertThat(kind(committed, AuditRecordKind.ENTRY))
                .extracting(AuditEntry::getRequestId)
                .containsExactly("b1", "b2", "b4", "b3");
    }

    /** A job started without its state on an audit topic that holds chains continues them. */
    @Test
    void aChainWithoutAHeadInStateContinuesFromItsLastCommittedEntry() throws Exception {
        List<AuditEntry> committed;
        try (var h = harness(null)) {
            h.processElement(unlinked("bank", "b1"), 0);
            h.processElement(unlinked("bank", "b2"), 0);
            committed = new ArrayList<>(h.extractOutputValues());
        }
        AuditEntry bankHead = kind(committed, AuditRecordKind.ENTRY).get(1);
        java.util.concurrent.atomic.AtomicInteger reads =
                new java.util.concurrent.atomic.AtomicInteger();
        CommittedChainHeads onTopic =
                () -> {
                    reads.incrementAndGet();
                    return java.util.Map.of("bank", bankHead);
                };
        try (var h = harness(null, onTopic)) {
            h.processElement(unlinked("bank", "b3"), 0);
            h.processElement(unlinked("clinic", "c1"), 0); // no chain yet: starts at 1
            h.processElement(unlinked("bank", "b4"), 0);
            committed.addAll(h.extractOutputValues());
        }
        assertThat(reads).as("the topic read once, at the first tenant without a head").hasValue(1);
        assertThat(verify(committed, "bank").problem()).isNull();
        assertThat(verify(committed, "bank").head()).isEqualTo(4);
        assertThat(verify(committed, "clinic").head()).isEqualTo(1);
    }
}

package io.zerolayer.operators.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.AuditRecordKind;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.audit.AuditChainHash;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

public class AuditChainVerifierTest {
    /** Entries 1..n of {@code tenant}'s chain, linked as the job links them. */
    static List<AuditEntry> chain(String tenant, int n) {
        List<AuditEntry> chain = new ArrayList<>();
        String previous = AuditChainHash.GENESIS;
        for (int i = 1; i <= n; i++) {
            AuditEntry e = AuditEntries.linked(unlinked(tenant, "r" + i), i, previous);
            chain.add(e);
            previous = e.getHash();
        }
        return chain;
    }

    /** An entry of {@code tenant} for {@code requestId}, as the executor makes it, not linked. */
    public static AuditEntry unlinked(String tenant, String requestId) {
        return AuditEntry.newBuilder()
                .setKind(AuditRecordKind.ENTRY)
                .setTenantId(tenant)
                .setSequence(0)
                .setRequestId(requestId)
                .setStatus(ResponseStatus.OK)
                .setGraphId("ab".repeat(32))
                .setModel("minilm@" + "cd".repeat(32))
                .setPromptSha256(AuditChainHash.sha256Hex("prompt " + requestId))
                .setOutputSha256(AuditChainHash.sha256Hex("output " + requestId))
                .setFidelity(Fidelity.FULL)
                .setTime(Instant.ofEpochMilli(1_767_225_600_000L))
                .setHash("")
                .build();
    }

    private static AuditChainVerifier.Verdict verify(List<AuditEntry> records, String tenant) {
        AuditChainVerifier verifier = new AuditChainVerifier();
        for (int i = 0; i < records.size(); i++) {
            verifier.record(records.get(i), "0/" + i);
        }
        return verifier.verify(tenant);
    }

    private static AuditEntry anchorOf(AuditEntry head) {
        return AuditEntries.anchor(
                head.getTenantId(), head.getSequence(), head.getHash(), Instant.now());
    }

    @Test
    void anIntactChainWithItsAnchorsVerifiesAndNamesItsHead() {
        List<AuditEntry> chain = chain("bank", 5);
        List<AuditEntry> topic = new ArrayList<>(chain);
        topic.add(2, anchorOf(chain.get(1)));
        topic.add(anchorOf(chain.get(4)));
        topic.addAll(chain("clinic", 2)); // another tenant's chain beside it

        AuditChainVerifier.Verdict v = verify(topic, "bank");

        assertThat(v.problem()).isNull();
        assertThat(v.intact()).isTrue();
        assertThat(v.entries()).isEqualTo(5);
        assertThat(v.anchors()).isEqualTo(2);
        assertThat(v.head()).isEqualTo(5);
        assertThat(v.headHash()).isEqualTo(chain.get(4).getHash());
        assertThat(verify(topic, "clinic").intact()).isTrue();
    }

    @Test
    void anEditedEntryIsNamed() {
        List<AuditEntry> chain = chain("bank", 5);
        chain.set(2, AuditEntry.newBuilder(chain.get(2)).setOutputSha256("00".repeat(32)).build());

        AuditChainVerifier.Verdict v = verify(chain, "bank");

        assertThat(v.problem())
                .isEqualTo("entry 3 (at 0/2) was edited: its contents do not give its hash");
        assertThat(v.head()).as("the last good entry").isEqualTo(2);
    }

    @Test
    void aDeletedEntryIsNamed() {
        List<AuditEntry> chain = chain("bank", 5);
        chain.remove(1);

        assertThat(verify(chain, "bank").problem())
                .isEqualTo("entry 2 is missing: entry 3 (at 0/1) follows entry 1");
    }

    @Test
    void deletedFirstEntriesAreNamed() {
        List<AuditEntry> chain = chain("bank", 5);
        chain.subList(0, 2).clear();

        assertThat(verify(chain, "bank").problem())
                .isEqualTo("entries 1–2 are missing: entry 3 (at 0/0) follows nothing");
    }

    @Test
    void deletedLastEntriesAreCaughtByTheAnchorThatHeldThem() {
        List<AuditEntry> chain = chain("bank", 5);
        AuditEntry anchor = anchorOf(chain.get(4));
        List<AuditEntry> topic = new ArrayList<>(chain.subList(0, 3));
        topic.add(anchor);

        assertThat(verify(topic, "bank").problem())
                .isEqualTo(
                        "entries 4–5 are missing: the anchor at 0/3 holds entry 5, and the chain"
                                + " ends at entry 3");
    }

    @Test
    void anInsertedEntryIsNamedWhetherItTakesAnotherEntrysNumberOrRenumbersTheRest() {
        List<AuditEntry> chain = chain("bank", 4);
        // hashed and linked like a real entry after entry 2, and numbered 3: there are two
        AuditEntry forged =
                AuditEntries.linked(unlinked("bank", "forged"), 3, chain.get(1).getHash());
        List<AuditEntry> topic = new ArrayList<>(chain);
        topic.add(2, forged);
        assertThat(verify(topic, "bank").problem())
                .isEqualTo(
                        "entry 3 appears twice (at 0/2 and 0/3): an entry was inserted, or the"
                                + " chain forked");

        // the entries after it renumbered: each no longer gives its hash
        List<AuditEntry> renumbered = new ArrayList<>(chain.subList(0, 2));
        renumbered.add(forged);
        for (AuditEntry later : chain.subList(2, 4)) {
            renumbered.add(
                    AuditEntry.newBuilder(later).setSequence(later.getSequence() + 1).build());
        }
        assertThat(verify(renumbered, "bank").problem())
                .isEqualTo("entry 4 (at 0/3) was edited: its contents do not give its hash");
    }

    @Test
    void aReplacedEntryWithAValidHashBreaksTheLinkAfterIt() {
        List<AuditEntry> chain = chain("bank", 4);
        chain.set(1, AuditEntries.linked(unlinked("bank", "replaced"), 2, chain.get(0).getHash()));

        assertThat(verify(chain, "bank").problem())
                .isEqualTo(
                        "entry 3 (at 0/2) does not link to entry 2: an entry before it was"
                                + " replaced, or it was inserted");
    }

    @Test
    void aChainRewrittenAfterItsAnchorIsCaughtByTheAnchor() {
        List<AuditEntry> chain = chain("bank", 3);
        AuditEntry anchor = anchorOf(chain.get(2));
        // every entry re-made from entry 2 on: internally consistent
        List<AuditEntry> rewritten = new ArrayList<>(chain.subList(0, 1));
        String previous = chain.get(0).getHash();
        for (int i = 2; i <= 3; i++) {
            AuditEntry e = AuditEntries.linked(unlinked("bank", "rewritten" + i), i, previous);
            rewritten.add(e);
            previous = e.getHash();
        }
        assertThat(verify(rewritten, "bank").intact()).isTrue();
        rewritten.add(anchor);

        assertThat(verify(rewritten, "bank").problem())
                .isEqualTo(
                        "the anchor at 0/3 holds another hash for entry 3 than the chain: the"
                                + " chain was rewritten after it was anchored");
    }

    @Test
    void aTenantWithoutEntriesHasNoChainToVerify() {
        assertThat(verify(chain("bank", 2), "clinic").problem()).isEqualTo("no entries");
    }
}

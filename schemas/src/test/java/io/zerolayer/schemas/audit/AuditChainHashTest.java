package io.zerolayer.schemas.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.AuditRecordKind;
import io.zerolayer.schemas.Fidelity;
import io.zerolayer.schemas.ResponseStatus;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AuditChainHashTest {
    private static AuditEntry.Builder entry() {
        return AuditEntry.newBuilder()
                .setKind(AuditRecordKind.ENTRY)
                .setTenantId("acme")
                .setSequence(1)
                .setRequestId("req-1\nwith a newline")
                .setStatus(ResponseStatus.OK)
                .setGraphId("ab".repeat(32))
                .setModel("minilm@" + "cd".repeat(32))
                .setPromptSha256("ef".repeat(32))
                .setOutputSha256("01".repeat(32))
                .setFidelity(Fidelity.FULL)
                .setTime(Instant.ofEpochMilli(1_767_225_600_000L))
                .setPreviousHash(AuditChainHash.GENESIS)
                .setHash("");
    }

    /** The vectors docs/audit.md's rule gives outside the JVM (computed with Python's hashlib). */
    @Test
    void hashesAsTheDocumentedRuleDoesOutsideTheJvm() {
        assertThat(AuditChainHash.of(entry().build()))
                .isEqualTo("c71ca47a0c4fb1db51770aac14c6c7ade6b14e59148e99cb27f4c2d7cdf9cee8");
        AuditEntry absentFields =
                entry().setSequence(2)
                        .setRequestId("req-2")
                        .setStatus(null)
                        .setGraphId(null)
                        .setModel(null)
                        .setOutputSha256(null)
                        .setFidelity(null)
                        .setTime(Instant.ofEpochMilli(1_767_225_600_001L))
                        .setPreviousHash("1".repeat(64))
                        .build();
        assertThat(AuditChainHash.of(absentFields))
                .isEqualTo("c46ff5bb137476dc0980ab1b67cba26ad499becd42a9aa003c42c537a067937b");
    }

    /**
     * An entry with a structure id hashes in the v2 form (the same Python function, given it); one
     * without, as entries written before it, in v1 (the vectors above).
     */
    @Test
    void anEntryWithAStructureIdHashesInTheV2Form() {
        AuditEntry withStructure = entry().setStructureId("23".repeat(32)).build();
        assertThat(AuditChainHash.of(withStructure))
                .isEqualTo("0ffc126cd0c553f2de36cf96206f35f86f6e795abf2ccc0fc5a5bee9ecf992a3");
        String canonical =
                new String(AuditChainHash.canonical(withStructure), StandardCharsets.UTF_8);
        assertThat(canonical)
                .startsWith("zerolayer-audit-v2\n")
                .endsWith("\n64:" + "23".repeat(32) + "\n");
        assertThat(AuditChainHash.of(entry().setStructureId("45".repeat(32)).build()))
                .isNotEqualTo(AuditChainHash.of(withStructure));
    }

    @Test
    void canonicalFormPrefixesEachFieldWithItsLengthSoNoTwoEntriesShareOne() {
        String canonical =
                new String(AuditChainHash.canonical(entry().build()), StandardCharsets.UTF_8);
        assertThat(canonical)
                .startsWith("zerolayer-audit-v1\n4:acme\n1:1\n20:req-1\nwith a newline\n2:OK\n");
        // the newline moved from the request id into the tenant id: same text joined by lines,
        // another canonical form
        AuditEntry shifted = entry().setTenantId("acme\n1").setRequestId("with a newline").build();
        assertThat(AuditChainHash.of(shifted)).isNotEqualTo(AuditChainHash.of(entry().build()));
    }

    @Test
    void theHashFieldAndTheKindAreNotHashedEveryOtherFieldIs() {
        String base = AuditChainHash.of(entry().build());
        assertThat(AuditChainHash.of(entry().setHash("anything").build())).isEqualTo(base);
        assertThat(AuditChainHash.of(entry().setSequence(2).build())).isNotEqualTo(base);
        assertThat(AuditChainHash.of(entry().setOutputSha256("02".repeat(32)).build()))
                .isNotEqualTo(base);
        assertThat(AuditChainHash.of(entry().setPreviousHash("1".repeat(64)).build()))
                .isNotEqualTo(base);
        assertThat(AuditChainHash.of(entry().setTime(Instant.ofEpochMilli(1)).build()))
                .isNotEqualTo(base);
        assertThat(AuditChainHash.of(entry().setFidelity(Fidelity.REDUCED).build()))
                .isNotEqualTo(base);
    }
}

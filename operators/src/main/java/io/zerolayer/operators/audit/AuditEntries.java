package io.zerolayer.operators.audit;

import io.zerolayer.operators.tasks.Audit;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.AuditRecordKind;
import io.zerolayer.schemas.audit.AuditChainHash;
import java.time.Instant;
import java.util.Map;

/**
 * The audit records of a tenant's chain: an entry for a response, before and after it is linked,
 * and an anchor of the chain's head.
 */
public final class AuditEntries {
    private AuditEntries() {}

    /**
     * The entry of a level-3 response, not yet linked: no sequence, previous hash or hash, which
     * the chain gives it ({@link #linked}). The prompt's hash is that of the request as it came,
     * the output's that of the reply, both as the audit node computed them where it ran; the model
     * is the audit node's attribute, absent when nothing ran (a FAILED response).
     *
     * @param structureId the id of the request's structure (what its prompt looked like; the graph
     *     id names the plan that ran it)
     */
    public static AuditEntry unlinked(
            AnalysisRequest request, AnalysisResponse response, String structureId) {
        Map<String, String> attributes = response.getAttributes();
        return AuditEntry.newBuilder()
                .setKind(AuditRecordKind.ENTRY)
                .setTenantId(response.getTenantId())
                .setSequence(0)
                .setRequestId(response.getRequestId())
                .setStatus(response.getStatus())
                .setGraphId(response.getGraphId())
                .setStructureId(structureId)
                .setModel(attributes == null ? null : attributes.get(Audit.MODEL_ATTRIBUTE))
                .setPromptSha256(
                        hashed(attributes, Audit.PROMPT_SHA256_ATTRIBUTE, request.getPrompt()))
                .setOutputSha256(
                        hashed(attributes, Audit.OUTPUT_SHA256_ATTRIBUTE, response.getOutput()))
                .setFidelity(response.getFidelity())
                .setTime(response.getTimings().getCompletedAt())
                .setHash("")
                .build();
    }

    /**
     * The audit node's hash of {@code text} where it ran (the last node of the graph: it hashed the
     * prompt as it came and the final output), else the hash computed here.
     */
    private static String hashed(Map<String, String> attributes, String attribute, String text) {
        String byTheNode = attributes == null ? null : attributes.get(attribute);
        return byTheNode != null ? byTheNode : AuditChainHash.sha256Hex(text);
    }

    /**
     * {@code entry} as the chain's entry {@code sequence}, after the one hashed {@code previous}.
     */
    public static AuditEntry linked(AuditEntry entry, long sequence, String previous) {
        AuditEntry linked =
                AuditEntry.newBuilder(entry)
                        .setSequence(sequence)
                        .setPreviousHash(previous)
                        .build();
        linked.setHash(AuditChainHash.of(linked));
        return linked;
    }

    /**
     * An anchor of {@code tenant}'s chain, whose head is entry {@code sequence} hashed {@code
     * hash}.
     */
    public static AuditEntry anchor(String tenant, long sequence, String hash, Instant at) {
        return AuditEntry.newBuilder()
                .setKind(AuditRecordKind.ANCHOR)
                .setTenantId(tenant)
                .setSequence(sequence)
                .setTime(at)
                .setHash(hash)
                .build();
    }
}

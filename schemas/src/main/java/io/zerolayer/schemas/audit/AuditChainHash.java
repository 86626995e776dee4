package io.zerolayer.schemas.audit;

import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.Sha256;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The hash that links an audit chain's entries: lowercase hex SHA-256 of an entry's canonical form,
 * which holds the previous entry's hash, so changing, removing or adding any entry breaks every
 * link after it.
 *
 * <p>The canonical form is the line {@code zerolayer-audit-v2} and then twelve fields, each written
 * as its UTF-8 byte length in decimal, a colon, its bytes and a newline ({@code 5:acme\n}); an
 * absent field is written {@code -\n}. The fields, in order: tenant id, sequence (decimal), request
 * id, status, graph id, model, prompt SHA-256, output SHA-256, fidelity, time (epoch milliseconds,
 * decimal), previous hash, structure id. An entry without a structure id (written before entries
 * carried one) hashes in the v1 form: the line {@code zerolayer-audit-v1} and the first eleven
 * fields. Length prefixes make the form unambiguous whatever a request id holds. The hash field
 * itself is not part of it. Writer and verifier both use this class; docs/audit.md gives the same
 * rule for verifiers outside the JVM.
 */
public final class AuditChainHash {
    /** The first line of the canonical form, naming its format. */
    public static final String VERSION = "zerolayer-audit-v2";

    /** The first line of the form of entries without a structure id. */
    public static final String VERSION_1 = "zerolayer-audit-v1";

    /** The previous hash of a tenant's first entry. */
    public static final String GENESIS = "0".repeat(64);

    private AuditChainHash() {}

    /** The canonical form of {@code entry}, which its hash is taken over. */
    public static byte[] canonical(AuditEntry entry) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512);
        boolean v1 = entry.getStructureId() == null;
        out.writeBytes(((v1 ? VERSION_1 : VERSION) + "\n").getBytes(StandardCharsets.UTF_8));
        field(out, entry.getTenantId());
        field(out, Long.toString(entry.getSequence()));
        field(out, entry.getRequestId());
        field(out, entry.getStatus());
        field(out, entry.getGraphId());
        field(out, entry.getModel());
        field(out, entry.getPromptSha256());
        field(out, entry.getOutputSha256());
        field(out, entry.getFidelity());
        field(out, entry.getTime() == null ? null : Long.toString(entry.getTime().toEpochMilli()));
        field(out, entry.getPreviousHash());
        if (!v1) {
            field(out, entry.getStructureId());
        }
        return out.toByteArray();
    }

    /** The hash {@code entry} must carry: lowercase hex SHA-256 of its canonical form. */
    public static String of(AuditEntry entry) {
        return Sha256.hex(canonical(entry));
    }

    /** Lowercase hex SHA-256 of {@code text} as UTF-8; null for null. */
    public static String sha256Hex(String text) {
        return text == null ? null : Sha256.hex(text);
    }

    private static void field(ByteArrayOutputStream out, Object value) {
        if (value == null) {
            out.writeBytes("-\n".getBytes(StandardCharsets.UTF_8));
            return;
        }
        byte[] bytes = value.toString().getBytes(StandardCharsets.UTF_8);
        out.writeBytes((bytes.length + ":").getBytes(StandardCharsets.UTF_8));
        out.writeBytes(bytes);
        out.write('\n');
    }
}

package io.zerolayer.operators.audit;

import io.zerolayer.schemas.AuditEntry;
import io.zerolayer.schemas.AuditRecordKind;
import io.zerolayer.schemas.audit.AuditChainHash;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Re-walks audit chains from the records of the audit topic, fed in the order they were read, and
 * names the first problem of each tenant's chain:
 *
 * <ul>
 *   <li>an entry whose contents do not give its hash (edited);
 *   <li>a sequence number missing before an entry, or after the last one up to an anchor (deleted);
 *   <li>a sequence number twice (inserted, or a forked chain);
 *   <li>an entry whose previous hash is not its predecessor's hash (replaced or inserted);
 *   <li>an anchor whose hash is not its entry's (the chain was rewritten after it was anchored).
 * </ul>
 *
 * A chain rewritten end to end, every hash recomputed, is internally consistent: what catches that
 * is an anchor kept outside Kafka (docs/audit.md). Entries are taken in sequence order, so a topic
 * whose partitions were added to (a tenant's entries in two partitions) still verifies.
 */
public final class AuditChainVerifier {
    /**
     * What verifying needs of a record, with where it was ({@code partition/offset}): its sequence,
     * hash and previous hash, and whether its contents give its hash (checked as it is read, so the
     * rest of the record is not kept).
     */
    private record Located(
            long sequence, String hash, String previousHash, boolean hashMatches, String at) {}

    private final Map<String, List<Located>> entries = new TreeMap<>();
    private final Map<String, List<Located>> anchors = new TreeMap<>();
    private final List<String> unreadable = new ArrayList<>();

    /** One record of the topic, read at {@code at} ({@code partition/offset}). */
    public void record(AuditEntry record, String at) {
        boolean anchor = record.getKind() == AuditRecordKind.ANCHOR;
        (anchor ? anchors : entries)
                .computeIfAbsent(record.getTenantId(), t -> new ArrayList<>())
                .add(
                        new Located(
                                record.getSequence(),
                                record.getHash(),
                                record.getPreviousHash(),
                                anchor || AuditChainHash.of(record).equals(record.getHash()),
                                at));
    }

    /** A record at {@code at} that is not an audit record. */
    public void unreadable(String at, String why) {
        unreadable.add("the record at " + at + " is not an audit record: " + why);
    }

    /** What was read that is not an audit record, one line each. */
    public List<String> unreadable() {
        return List.copyOf(unreadable);
    }

    /** The tenants with entries or anchors, in order. */
    public List<String> tenants() {
        java.util.TreeSet<String> all = new java.util.TreeSet<>(entries.keySet());
        all.addAll(anchors.keySet());
        return List.copyOf(all);
    }

    /** What a tenant's chain holds, and its first problem. */
    public record Verdict(
            String tenant, long entries, long anchors, long head, String headHash, String problem) {
        public boolean intact() {
            return problem == null;
        }
    }

    /** The verdict on {@code tenant}'s chain; one without records is a problem too. */
    public Verdict verify(String tenant) {
        List<Located> chain = new ArrayList<>(entries.getOrDefault(tenant, List.of()));
        List<Located> anchored = anchors.getOrDefault(tenant, List.of());
        chain.sort(Comparator.comparingLong(l -> l.sequence())); // stable: read order
        long expected = 1;
        String previous = AuditChainHash.GENESIS;
        Map<Long, String> hashes = new java.util.HashMap<>();
        String problem = null;
        for (int i = 0; i < chain.size() && problem == null; i++) {
            Located l = chain.get(i);
            problem =
                    problem(l, i + 1 < chain.size() ? chain.get(i + 1) : null, expected, previous);
            if (problem == null) {
                hashes.put(l.sequence(), l.hash());
                previous = l.hash();
                expected = l.sequence() + 1;
            }
        }
        long head = expected - 1;
        if (problem == null) {
            problem = checkAnchors(anchored, head, hashes);
        }
        if (problem == null && chain.isEmpty()) {
            problem = "no entries";
        }
        return new Verdict(tenant, chain.size(), anchored.size(), head, previous, problem);
    }

    /**
     * What is wrong with entry {@code l}, taken in sequence order before {@code next} (null for the
     * last), where entry {@code expected} hashed {@code previous} should come; null when nothing.
     */
    private static String problem(Located l, Located next, long expected, String previous) {
        long seq = l.sequence();
        String entry = "entry " + seq + " (at " + l.at() + ")";
        if (next != null && seq == next.sequence()) {
            return "entry "
                    + seq
                    + " appears twice (at "
                    + l.at()
                    + " and "
                    + next.at()
                    + "): an entry was inserted, or the chain forked";
        }
        if (seq < expected) {
            return entry + " is numbered below 1";
        }
        if (seq > expected) {
            return missing(expected, seq - 1)
                    + ": "
                    + entry
                    + " follows "
                    + (expected == 1 ? "nothing" : "entry " + (expected - 1));
        }
        if (!l.hashMatches()) {
            return entry + " was edited: its contents do not give its hash";
        }
        if (!previous.equals(l.previousHash())) {
            return entry
                    + " does not link to "
                    + (seq == 1 ? "the chain's start" : "entry " + (seq - 1))
                    + ": an entry before it was replaced, or it was inserted";
        }
        return null;
    }

    private static String checkAnchors(
            List<Located> anchored, long head, Map<Long, String> hashes) {
        for (Located a : anchored) {
            long seq = a.sequence();
            if (seq > head) {
                return missing(head + 1, seq)
                        + ": the anchor at "
                        + a.at()
                        + " holds entry "
                        + seq
                        + ", and the chain ends at entry "
                        + head;
            }
            if (!a.hash().equals(hashes.get(seq))) {
                return "the anchor at "
                        + a.at()
                        + " holds another hash for entry "
                        + seq
                        + " than the chain: the chain was rewritten after it was anchored";
            }
        }
        return null;
    }

    private static String missing(long from, long to) {
        return from == to
                ? "entry " + from + " is missing"
                : "entries " + from + "–" + to + " are missing";
    }
}

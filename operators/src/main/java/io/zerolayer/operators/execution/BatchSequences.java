package io.zerolayer.operators.execution;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.costs.PriceSheet;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Which of a batch's sequences the encoder must run. Each is a hit in the embedding cache (its
 * vector taken from there, its lookup timed on its request), a duplicate of one earlier in the
 * batch (given that one's vector once it is encoded; its request then shares the encoding's cost by
 * its tokens), or one to encode. A request that does not use the cache folds only its own
 * duplicates.
 */
final class BatchSequences {
    /** A sequence of a request: its position among the request's sequences, its length. */
    record Ref(PreparedRequest owner, int position, int length) {
        long[] ids() {
            return owner.sequences.get(position);
        }
    }

    private final EmbeddingCache cache;
    private final String model;
    private final String checksum;
    private final List<Ref> toEncode = new ArrayList<>();
    private final Map<Ref, List<Ref>> duplicates = new IdentityHashMap<>();

    /**
     * @param cache the embedding cache, or null for none
     * @param encoder the session the sequences are encoded with (its model and weights key the
     *     cache)
     */
    BatchSequences(List<PreparedRequest> prepared, EmbeddingCache cache, SentenceEncoder encoder) {
        this.cache = cache;
        this.model = encoder.model().id();
        this.checksum = encoder.checksum();
        Map<Object, Ref> first = new HashMap<>();
        for (PreparedRequest p : prepared) {
            String scope = scope(p);
            for (int j = 0; j < p.sequences.size(); j++) {
                long[] ids = p.sequences.get(j);
                if (scope != null && fromCache(p, j, scope, ids)) {
                    continue;
                }
                Ref ref = new Ref(p, j, ids.length);
                Ref earlier =
                        first.putIfAbsent(
                                List.of(scope == null ? p : scope, LongBuffer.wrap(ids)), ref);
                if (earlier != null) {
                    duplicates.get(earlier).add(ref);
                    continue;
                }
                duplicates.put(ref, new ArrayList<>());
                toEncode.add(ref);
            }
        }
        toEncode.sort(Comparator.comparingInt(Ref::length));
    }

    /** The request's cache scope; null when it does not use the cache. */
    private String scope(PreparedRequest p) {
        return cache == null ? null : p.input.mode().cacheScope();
    }

    /** Takes sequence {@code j} of {@code p} from the cache; whether it was there. */
    private boolean fromCache(PreparedRequest p, int j, String scope, long[] ids) {
        long lookup = System.nanoTime();
        float[] hit = cache.get(scope, model, checksum, ids);
        p.cacheNanos += System.nanoTime() - lookup;
        if (hit == null) {
            return false;
        }
        p.vectors[j] = hit;
        p.cacheHits++;
        p.cacheTokens += realTokens(ids.length);
        return true;
    }

    /** The sequences to encode, shortest first. */
    List<Ref> toEncode() {
        return toEncode;
    }

    /**
     * {@code encoded}'s vector is {@code vector}: its duplicates get copies (and its tokens, by
     * which they share its cost), and the cache keeps it where its request's scope allows.
     */
    void encoded(Ref encoded, float[] vector, int realTokens) {
        for (Ref same : duplicates.get(encoded)) {
            same.owner().vectors[same.position()] = vector.clone();
            same.owner().encodeTokens += realTokens;
        }
        String scope = scope(encoded.owner());
        if (scope != null) {
            cache.put(scope, model, checksum, encoded.ids(), vector);
        }
    }

    /** Real tokens of a sequence of {@code length} content tokens: [CLS] and [SEP] added. */
    static int realTokens(int length) {
        return Math.min(length, SentenceEncoder.MAX_SEQUENCE_LENGTH - 2) + 2;
    }

    /**
     * The {@code cache} node of a request that took {@code p.cacheHits} vectors from the embedding
     * cache: billed for its lookups' measured time, with no FLOPs; it read the vectors.
     */
    static NodeRun cacheRun(
            PreparedRequest p,
            EncoderModel model,
            long startedAt,
            PriceSheet prices,
            String profile) {
        long bytes = (long) p.cacheHits * model.hiddenSize() * Float.BYTES;
        return new NodeRun(
                        "cache",
                        "cache",
                        model.id(),
                        startedAt,
                        p.cacheNanos,
                        p.cacheHits,
                        p.cacheTokens,
                        0L,
                        bytes,
                        null,
                        null,
                        null,
                        p.cacheHits,
                        null)
                .billed(prices.bill(profile, "fp32", 0L, bytes, null, p.cacheNanos));
    }
}

package io.zerolayer.operators.execution;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.io.Serializable;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TaskManager's content-addressed cache of chunk embeddings: the pooled vector of a token
 * sequence, keyed by the model and weight checksum that encoded it, the sequence's token ids and
 * the scope it may be shared in (its tenant, or every tenant). A sequence a graph has encoded
 * before is not encoded again; its request is billed for the lookup (a {@code cache} node), not for
 * the encoder. Bounded in bytes (Caffeine's size-based eviction, least valuable first).
 *
 * <p>Every slot of a TaskManager shares one cache ({@link #forTaskManager}); it is emptied by the
 * control topic's {@code clear-cache}, and whenever a model is seen with weights other than those
 * its entries were encoded with.
 *
 * <p>An int8 encoder quantises each run's activations with one scale, so a vector depends a little
 * on the sequences it was encoded beside; a hit returns the vector of the run that first encoded
 * the sequence, which is as close to any other run's as two runs are to each other.
 */
public final class EmbeddingCache {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddingCache.class);

    /** Whom a cached sequence is shared with. */
    public enum Scope {
        /** A tenant's sequences are hits for that tenant only (the default). */
        TENANT,
        /**
         * Every tenant's: a tenant whose text repeats another's is served from the other's
         * encoding, and can tell so from its bill (a {@code cache} node), which says that someone
         * sent that text before.
         */
        SHARED
    }

    /**
     * How the executor uses the cache.
     *
     * @param maxBytes the cache's bound per TaskManager; 0 turns it off
     * @param scope whom a sequence is shared with
     * @param complianceLevel3 whether requests at compliance level 3 use it (they neither read nor
     *     add entries otherwise)
     */
    public record Settings(long maxBytes, Scope scope, boolean complianceLevel3)
            implements Serializable {
        public static final Settings OFF = new Settings(0, Scope.TENANT, false);

        public Settings {
            if (maxBytes < 0) {
                throw new IllegalArgumentException(
                        "zerolayer.embedding-cache.size must not be negative, got " + maxBytes);
            }
            java.util.Objects.requireNonNull(scope, "scope");
        }

        public boolean enabled() {
            return maxBytes > 0;
        }

        /**
         * The cache scope of a request of {@code tenant}: the tenant, or {@code ""} when shared;
         * null when the request does not use the cache.
         */
        public String scopeOf(String tenant, boolean strict) {
            if (!enabled() || (strict && !complianceLevel3)) {
                return null;
            }
            return scope == Scope.SHARED ? "" : (tenant == null ? "" : tenant);
        }
    }

    /** A cached sequence's identity. */
    private static final class Key {
        final String scope;
        final String model;
        final long[] ids;
        final int hash;

        Key(String scope, String model, long[] ids) {
            this.scope = scope;
            this.model = model;
            this.ids = ids;
            this.hash = 31 * (31 * scope.hashCode() + model.hashCode()) + Arrays.hashCode(ids);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k
                    && k.hash == hash
                    && k.model.equals(model)
                    && k.scope.equals(scope)
                    && Arrays.equals(k.ids, ids);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /** Bytes an entry is counted as: its ids, its vector, its strings and the objects around. */
    static int weight(Key k, float[] vector) {
        return 96
                + 8 * k.ids.length
                + 4 * vector.length
                + 2 * (k.scope.length() + k.model.length());
    }

    private final Cache<Key, float[]> cache;
    private final Map<String, String> checksums = new HashMap<>();

    public EmbeddingCache(long maxBytes) {
        if (maxBytes <= 0) {
            throw new IllegalArgumentException("An embedding cache needs a positive size");
        }
        this.cache =
                Caffeine.newBuilder()
                        .maximumWeight(maxBytes)
                        .weigher(EmbeddingCache::weight)
                        .executor(Runnable::run) // evict on the caller's thread: no pool threads
                        .recordStats()
                        .build();
    }

    private static EmbeddingCache taskManagers;

    /**
     * The cache every slot of this TaskManager (JVM) shares, made with the first bound asked for;
     * null when {@code settings} turn it off.
     */
    public static synchronized EmbeddingCache forTaskManager(Settings settings) {
        if (!settings.enabled()) {
            return null;
        }
        if (taskManagers == null) {
            taskManagers = new EmbeddingCache(settings.maxBytes());
            LOG.info(
                    "Embedding cache of {} MB for this TaskManager ({} scope)",
                    settings.maxBytes() >> 20,
                    settings.scope());
        }
        return taskManagers;
    }

    /**
     * The vector of {@code ids} as {@code model} (id) with weights {@code checksum} encoded it in
     * {@code scope}, or null; a copy, so the caller may change it.
     */
    public float[] get(String scope, String model, String checksum, long[] ids) {
        float[] v = cache.getIfPresent(new Key(scope, versioned(model, checksum), ids));
        return v == null ? null : v.clone();
    }

    /** Keeps the vector of {@code ids} (copies of both). */
    public void put(String scope, String model, String checksum, long[] ids, float[] vector) {
        cache.put(new Key(scope, versioned(model, checksum), ids.clone()), vector.clone());
    }

    /** The key's model part; a model seen with new weights empties the cache first. */
    private String versioned(String model, String checksum) {
        synchronized (checksums) {
            String known = checksums.put(model, checksum);
            if (known != null && !known.equals(checksum)) {
                LOG.info(
                        "Model {} changed weights ({} → {}): the embedding cache is cleared",
                        model,
                        known,
                        checksum);
                clear();
            }
        }
        return model + "@" + checksum;
    }

    /** Drops every entry. */
    public void clear() {
        cache.invalidateAll();
        cache.cleanUp();
    }

    public long hits() {
        return cache.stats().hitCount();
    }

    public long misses() {
        return cache.stats().missCount();
    }

    public long evictions() {
        return cache.stats().evictionCount();
    }

    /** Bytes the entries are counted as now. */
    public long bytes() {
        return cache.policy().eviction().map(e -> e.weightedSize().orElse(0)).orElse(0L);
    }

    public long size() {
        return cache.estimatedSize();
    }
}

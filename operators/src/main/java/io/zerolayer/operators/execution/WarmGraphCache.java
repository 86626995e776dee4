package io.zerolayer.operators.execution;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The compiled graphs of one slot, least recently used first out. Bounded three ways: entries,
 * approximate bytes (a graph's weight is the size of its descriptor: the ONNX sessions it uses are
 * shared by the slot and not counted here) and idle time (a graph not used for {@code ttlMillis} is
 * dropped at the next access). Counts hits and misses.
 */
public final class WarmGraphCache {
    private final int maxEntries;
    private final long maxBytes;
    private final long ttlMillis;
    private final LongSupplier clock;
    private final LinkedHashMap<String, Entry> entries = new LinkedHashMap<>(16, 0.75f, true);
    private long bytes;
    private long hits;
    private long misses;

    private record Entry(CompiledGraph graph, long weight, long lastUsed) {}

    /** The three bounds, as configured (graph-cache.capacity, .size-mb, .ttl). */
    public record Bounds(int maxEntries, long maxBytes, long ttlMillis)
            implements java.io.Serializable {}

    public WarmGraphCache(Bounds bounds, LongSupplier clock) {
        this(bounds.maxEntries(), bounds.maxBytes(), bounds.ttlMillis(), clock);
    }

    public WarmGraphCache(int maxEntries, long maxBytes, long ttlMillis, LongSupplier clock) {
        if (maxEntries < 1 || maxBytes < 1 || ttlMillis < 1) {
            throw new IllegalArgumentException(
                    "Graph cache bounds must be positive: entries "
                            + maxEntries
                            + ", bytes "
                            + maxBytes
                            + ", ttl "
                            + ttlMillis
                            + " ms");
        }
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.ttlMillis = ttlMillis;
        this.clock = clock;
    }

    /** The warm graph, or null (a miss). */
    public CompiledGraph get(String graphId) {
        long now = clock.getAsLong();
        expire(now);
        Entry e = entries.get(graphId);
        if (e == null) {
            misses++;
            return null;
        }
        hits++;
        entries.put(graphId, new Entry(e.graph(), e.weight(), now));
        return e.graph();
    }

    public void put(String graphId, CompiledGraph graph, long weightBytes) {
        Entry old = entries.put(graphId, new Entry(graph, weightBytes, clock.getAsLong()));
        bytes += weightBytes - (old == null ? 0 : old.weight());
        Iterator<Map.Entry<String, Entry>> eldest = entries.entrySet().iterator();
        while ((entries.size() > maxEntries || bytes > maxBytes) && eldest.hasNext()) {
            Map.Entry<String, Entry> e = eldest.next();
            if (e.getKey().equals(graphId) && entries.size() == 1) {
                break; // never evict the graph just compiled for the request at hand
            }
            bytes -= e.getValue().weight();
            eldest.remove();
        }
    }

    public void clear() {
        entries.clear();
        bytes = 0;
    }

    private void expire(long now) {
        Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Entry> e = it.next();
            if (now - e.getValue().lastUsed() < ttlMillis) {
                break; // access order: the rest were used more recently
            }
            bytes -= e.getValue().weight();
            it.remove();
        }
    }

    public int size() {
        return entries.size();
    }

    public long bytes() {
        return bytes;
    }

    public long hits() {
        return hits;
    }

    public long misses() {
        return misses;
    }

    /** Hits over lookups, 0 before the first lookup. */
    public double hitRatio() {
        return hits + misses == 0 ? 0 : (double) hits / (hits + misses);
    }

    /** Graph ids, least recently used first. */
    public java.util.List<String> graphIds() {
        return java.util.List.copyOf(entries.keySet());
    }
}

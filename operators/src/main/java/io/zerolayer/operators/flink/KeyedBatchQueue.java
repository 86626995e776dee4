package io.zerolayer.operators.flink;

import io.zerolayer.operators.routing.RoutedRequest;
import io.zerolayer.operators.scheduling.MicroBatchPolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.apache.flink.api.common.functions.RuntimeContext;
import org.apache.flink.api.common.state.ListState;
import org.apache.flink.api.common.state.ListStateDescriptor;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;

/**
 * A key's micro-batch in Flink keyed state: the requests waiting for it in arrival order (queued),
 * those of its batch on the inference thread until their replies are out (running), and when its
 * flush timer fires. Being state, every checkpoint holds each request not yet answered.
 */
final class KeyedBatchQueue {
    private static final ListStateDescriptor<RoutedRequest> QUEUE =
            new ListStateDescriptor<>("batch-queue", RoutedRequestSerializer.TYPE_INFO);

    /** How many requests {@link #QUEUE} holds (null: none). */
    private static final ValueStateDescriptor<Integer> QUEUED =
            new ValueStateDescriptor<>("batch-queued", Integer.class);

    private static final ValueStateDescriptor<Long> FLUSH_AT =
            new ValueStateDescriptor<>("batch-flush-at", Long.class);

    /** The most requests the queue's next batch takes: the batch size of its graph. */
    private static final ValueStateDescriptor<Integer> BATCH_LIMIT =
            new ValueStateDescriptor<>("batch-limit", Integer.class);

    /** Requests of this key whose batch is on the inference thread, until their replies are out. */
    static final ListStateDescriptor<RoutedRequest> IN_FLIGHT =
            new ListStateDescriptor<>("batch-in-flight", RoutedRequestSerializer.TYPE_INFO);

    private final ListState<RoutedRequest> queue;
    private final ValueState<Integer> queued;
    private final ValueState<Long> flushAt;
    private final ValueState<Integer> batchLimit;
    private final ListState<RoutedRequest> inFlight;

    KeyedBatchQueue(RuntimeContext context) {
        queue = context.getListState(QUEUE);
        queued = context.getState(QUEUED);
        flushAt = context.getState(FLUSH_AT);
        batchLimit = context.getState(BATCH_LIMIT);
        inFlight = context.getListState(IN_FLIGHT);
    }

    /** Requests of the current key waiting for their batch. */
    int waiting() throws Exception {
        Integer n = queued.value();
        return n == null ? 0 : n;
    }

    /** Queues a request for a batch of at most {@code batchSize}. */
    void add(RoutedRequest in, int batchSize) throws Exception {
        int before = waiting();
        queue.add(in);
        queued.update(before + 1);
        batchLimit.update(batchSize);
    }

    /**
     * Takes the next batch off the queue: up to its batch size, the first in {@code order} (of the
     * queue in arrival order); the rest stay queued in arrival order.
     */
    List<RoutedRequest> takeBatch(UnaryOperator<List<RoutedRequest>> order) throws Exception {
        List<RoutedRequest> all = new ArrayList<>();
        for (RoutedRequest r : queue.get()) {
            all.add(r);
        }
        int take = MicroBatchPolicy.take(all.size(), batchLimit.value());
        List<RoutedRequest> batch = new ArrayList<>(order.apply(all).subList(0, take));
        Set<RoutedRequest> taken = Collections.newSetFromMap(new IdentityHashMap<>());
        taken.addAll(batch);
        List<RoutedRequest> rest = new ArrayList<>();
        for (RoutedRequest r : all) {
            if (!taken.contains(r)) {
                rest.add(r);
            }
        }
        if (rest.isEmpty()) {
            queue.clear();
            queued.clear();
            batchLimit.clear();
        } else {
            queue.update(rest);
            queued.update(rest.size());
        }
        return batch;
    }

    /** Keeps a batch's requests while it runs on the inference thread. */
    void holdInFlight(List<RoutedRequest> running) throws Exception {
        inFlight.update(running);
    }

    /** The requests a restore left in flight (their batch ran at the checkpoint), released. */
    List<RoutedRequest> takeInFlight() throws Exception {
        List<RoutedRequest> held = new ArrayList<>();
        for (RoutedRequest r : inFlight.get()) {
            held.add(r);
        }
        if (!held.isEmpty()) {
            inFlight.clear();
        }
        return held;
    }

    /** Whether requests are in flight: a batch runs, or a restore left one to run again. */
    boolean holdsInFlight() throws Exception {
        Iterable<RoutedRequest> held = inFlight.get();
        return held != null && held.iterator().hasNext();
    }

    /** Releases the running batch's requests: their replies are out. */
    void releaseInFlight() {
        inFlight.clear();
    }

    /** When the queue's flush timer fires; null when none is set. */
    Long flushAt() throws Exception {
        return flushAt.value();
    }

    void flushAt(Long at) throws Exception {
        if (at == null) {
            flushAt.clear();
        } else {
            flushAt.update(at);
        }
    }

    /**
     * After a restore: the keys whose batch was in flight at the checkpoint, for the executor to
     * run again.
     */
    static List<String> keysInFlight(
            org.apache.flink.runtime.state.KeyedStateBackend<String> backend) throws Exception {
        List<String> keys = new ArrayList<>();
        backend.applyToAllKeys(
                org.apache.flink.runtime.state.VoidNamespace.INSTANCE,
                org.apache.flink.runtime.state.VoidNamespaceSerializer.INSTANCE,
                IN_FLIGHT,
                (key, requests) -> {
                    Iterable<RoutedRequest> held = requests.get();
                    if (held != null && held.iterator().hasNext()) {
                        keys.add(key);
                    }
                });
        return keys;
    }
}

package io.zerolayer.operators.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One thread that runs a slot's batches, at most one per key at a time, so the thread that hands
 * them over (Flink's task thread) stays free. A key's batch is its own until {@link #take}n, done
 * or not: whoever hands batches over also collects them. Knows nothing of Flink.
 *
 * <p><b>Order.</b> Each batch comes with a due time; the waiting batch due first runs next (of
 * equal due times, the one handed over first). A running batch can also let batches due before it
 * run in its midst: between two slices of its work it calls {@link #between()}, which runs them on
 * this thread, one level deep, and returns. So a short request handed over while a long document
 * encodes waits for the document's current slice, not for the whole document.
 *
 * <p><b>Together.</b> A batch handed over as {@link Shareable} names a group (for the executor: the
 * encoder session its graphs run on). When it runs, the waiting batches of its group join it,
 * earliest due first, while their padded tokens fit the thread's token budget, and all of them run
 * in one pass ({@link Shareable#runWith}): so batches of different keys fill one encoder run, as a
 * serving router's batcher would fill it. Each still has its own result, taken by its own key. A
 * batch that joins another runs earlier than its due time alone would have it; run between another
 * batch's slices, only batches due before that batch join.
 *
 * @param <K> what batches are keyed by
 * @param <R> what a batch returns
 */
public final class InferenceThread<K, R> implements AutoCloseable {
    private final ThreadPoolExecutor thread;
    private final ConcurrentMap<K, Future<R>> handed = new ConcurrentHashMap<>();
    private final AtomicLong handedOver = new AtomicLong();

    /** The batch this thread runs at the outer level; only this thread writes it. */
    private volatile Batch running;

    /** Whether this thread is inside {@link #between()}; only this thread reads or writes it. */
    private boolean interleaving;

    private final AtomicLong interleaved = new AtomicLong();

    private final AtomicLong joined = new AtomicLong();

    /** Most padded tokens of the batches that run together in one pass. */
    private final long tokenBudget;

    /**
     * A batch that can run in one pass with other keys' batches of its group.
     *
     * @param <R> what a batch returns
     */
    public interface Shareable<R> extends Callable<R> {
        /** Which batches it may run with: those of an equal group; null: none, it runs alone. */
        Object group();

        /** Its padded tokens (longest sequence × sequences), counted against the token budget. */
        long paddedTokens();

        /**
         * Runs this batch and {@code others} (all of its group) in one pass: one result per batch,
         * this one's first, then the others' in order.
         */
        List<R> runWith(List<Shareable<R>> others) throws Exception;
    }

    /**
     * A thread whose batches always run alone.
     *
     * @param name the thread's name
     * @param contextClassLoader the thread's context class loader (the job's user code)
     */
    public InferenceThread(String name, ClassLoader contextClassLoader) {
        this(name, contextClassLoader, 0);
    }

    /**
     * @param name the thread's name
     * @param contextClassLoader the thread's context class loader (the job's user code)
     * @param tokenBudget most padded tokens of the {@link Shareable} batches that run together in
     *     one pass (the batch that runs first always runs, however large); 0: each runs alone
     */
    public InferenceThread(String name, ClassLoader contextClassLoader, long tokenBudget) {
        if (tokenBudget < 0) {
            throw new IllegalArgumentException(
                    "The token budget must be 0 (off) or positive, got " + tokenBudget);
        }
        this.tokenBudget = tokenBudget;
        this.thread =
                new ThreadPoolExecutor(
                        1,
                        1,
                        0,
                        TimeUnit.MILLISECONDS,
                        new PriorityBlockingQueue<>(),
                        r -> {
                            Thread t = new Thread(r, name);
                            t.setDaemon(true);
                            t.setContextClassLoader(contextClassLoader);
                            return t;
                        }) {
                    @Override
                    protected void beforeExecute(Thread t, Runnable r) {
                        running = (Batch) r;
                    }

                    @Override
                    protected void afterExecute(Runnable r, Throwable t) {
                        running = null;
                    }
                };
    }

    /**
     * Hands {@code key}'s batch over, to run in the order it was handed over.
     *
     * @throws IllegalStateException when the key has a batch not yet taken
     */
    public void submit(K key, Callable<R> batch) {
        submit(key, batch, null, Long.MAX_VALUE);
    }

    /**
     * Hands {@code key}'s batch over, and calls {@code whenDone} with the key on this thread once
     * the batch is {@link #done} (returned or threw), so the caller need not poll for it.
     *
     * @param whenDone called once the batch is done; null for none
     * @param due when the batch should be done, on any scale the caller uses for every batch (epoch
     *     milliseconds in the executor): of the batches waiting, the one due first runs next, and
     *     one due before the running batch may run between its slices
     * @throws IllegalStateException when the key has a batch not yet taken
     */
    public void submit(K key, Callable<R> batch, Consumer<K> whenDone, long due) {
        if (handed.containsKey(key)) {
            throw new IllegalStateException("Key " + key + " has a batch not yet taken");
        }
        Batch task = new Batch(key, batch, whenDone, due, handedOver.getAndIncrement());
        // handed before it can run, so that whoever is told it is done finds it
        handed.put(key, task);
        try {
            thread.execute(task);
        } catch (RuntimeException stopped) {
            handed.remove(key);
            throw stopped;
        }
    }

    /**
     * Called by a running batch, on this thread, between two slices of its work: runs the waiting
     * batches due before it, earliest first, then returns. Batches run this way do not interleave
     * others in turn. Does nothing when called from any other thread or from such a batch.
     *
     * @return nanoseconds spent running other batches (0 when none ran), so the caller can move its
     *     own time limit by as much
     */
    public long between() {
        Batch outer = running;
        if (outer == null || interleaving || !outer.onThisThread()) {
            return 0;
        }
        long start = System.nanoTime();
        boolean ran = false;
        interleaving = true;
        try {
            PriorityBlockingQueue<Runnable> waiting =
                    (PriorityBlockingQueue<Runnable>) thread.getQueue();
            for (Runnable head = waiting.peek(); head != null; head = waiting.peek()) {
                @SuppressWarnings("unchecked")
                Batch next = (Batch) head;
                // only this thread takes from the queue: the head is still there to remove
                if (next.compareTo(outer) >= 0 || !waiting.remove(head)) {
                    break;
                }
                next.run();
                interleaved.incrementAndGet();
                ran = true;
            }
        } finally {
            interleaving = false;
        }
        return ran ? System.nanoTime() - start : 0;
    }

    /**
     * Whether a batch running or waiting is due no later than {@code due}: one handed over now, due
     * then, would wait for it. A running batch due later does not count; it lets such a batch in
     * between its slices.
     */
    public boolean holdsWorkDueBy(long due) {
        Batch outer = running;
        if (outer != null && outer.due <= due) {
            return true;
        }
        Runnable head = thread.getQueue().peek();
        @SuppressWarnings("unchecked")
        Batch first = (Batch) head;
        return first != null && first.due <= due;
    }

    /** Batches run between the slices of another so far. */
    public long interleavedBatches() {
        return interleaved.get();
    }

    /** Batches that joined another's pass so far. */
    public long joinedBatches() {
        return joined.get();
    }

    /**
     * The waiting batches that join the pass of the batch that runs {@code shared}, taken from the
     * queue: of its group, earliest due first, while their tokens fit the budget; run between the
     * slices of {@code outer} (null: none), only those due before it. Only this thread takes from
     * the queue.
     */
    private List<Batch> joining(Shareable<R> shared, Batch outer) {
        Object group = shared.group();
        if (group == null || tokenBudget == 0) {
            return List.of();
        }
        long tokens = shared.paddedTokens();
        List<Batch> waiting = new ArrayList<>();
        for (Object o : thread.getQueue().toArray()) {
            @SuppressWarnings("unchecked")
            Batch b = (Batch) o;
            if (b.work instanceof Shareable<R> s && group.equals(s.group())) {
                waiting.add(b);
            }
        }
        waiting.sort(null);
        List<Batch> joining = new ArrayList<>();
        for (Batch b : waiting) {
            if (outer != null && b.compareTo(outer) >= 0) {
                break;
            }
            long more = ((Shareable<R>) b.work).paddedTokens();
            if (tokens + more > tokenBudget) {
                break; // in due order: a later batch does not overtake one that did not fit
            }
            if (thread.getQueue().remove(b)) {
                joining.add(b);
                tokens += more;
            }
        }
        return joining;
    }

    /** Whether {@code key} has a batch handed over and not yet taken (running, waiting or done). */
    public boolean has(K key) {
        return handed.containsKey(key);
    }

    /** Whether no key has a batch: the thread has nothing to run. */
    public boolean idle() {
        return handed.isEmpty();
    }

    /** Keys with a batch not yet taken. */
    public int size() {
        return handed.size();
    }

    /** Whether {@code key}'s batch is done (false when it has none). */
    public boolean done(K key) {
        Future<R> h = handed.get(key);
        return h != null && h.isDone();
    }

    /**
     * Takes {@code key}'s batch, waiting for it to finish, and returns what it returned; rethrows
     * what it threw (an {@link Exception} as is).
     *
     * @throws IllegalStateException when the key has no batch
     */
    public R take(K key) throws Exception {
        Future<R> h = handed.remove(key);
        if (h == null) {
            throw new IllegalStateException("Key " + key + " has no batch");
        }
        try {
            return h.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw e;
        }
    }

    /**
     * Stops taking batches and waits up to {@code timeoutSeconds} for the one running (a model
     * session must not close under it); the rest are dropped. Returns whether the thread stopped.
     */
    public boolean stop(long timeoutSeconds) throws InterruptedException {
        thread.shutdownNow();
        handed.clear();
        return thread.awaitTermination(timeoutSeconds, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        stop(60);
    }

    /** A handed-over batch: due first runs first, then handed over first. */
    private final class Batch extends FutureTask<R> implements Comparable<Batch> {
        private final K key;
        private final Consumer<K> whenDone;
        private final long due;
        private final long order;
        private final Callable<R> work;
        private volatile Thread runner;

        Batch(K key, Callable<R> work, Consumer<K> whenDone, long due, long order) {
            super(work);
            this.work = work;
            this.key = key;
            this.whenDone = whenDone;
            this.due = due;
            this.order = order;
        }

        @Override
        public void run() {
            runner = Thread.currentThread();
            List<Batch> joining =
                    work instanceof Shareable<R> shared && !isDone()
                            ? joining(shared, interleaving ? running : null)
                            : List.of();
            if (joining.isEmpty()) {
                super.run();
                return;
            }
            List<Shareable<R>> others = new ArrayList<>(joining.size());
            joining.forEach(b -> others.add((Shareable<R>) b.work));
            joined.addAndGet(joining.size());
            List<R> results;
            try {
                results = ((Shareable<R>) work).runWith(others);
                if (results.size() != joining.size() + 1) {
                    throw new IllegalStateException(
                            results.size() + " results for " + (joining.size() + 1) + " batches");
                }
            } catch (Throwable t) {
                setException(t);
                joining.forEach(b -> b.setException(t));
                return;
            }
            set(results.get(0));
            for (int i = 0; i < joining.size(); i++) {
                joining.get(i).set(results.get(i + 1));
            }
        }

        boolean onThisThread() {
            return runner == Thread.currentThread();
        }

        @Override
        protected void done() {
            // after the result is set: done(key) is true for whoever is told
            if (whenDone != null && !isCancelled()) {
                whenDone.accept(key);
            }
        }

        @Override
        public int compareTo(Batch other) {
            int byDue = Long.compare(due, other.due);
            return byDue != 0 ? byDue : Long.compare(order, other.order);
        }
    }
}

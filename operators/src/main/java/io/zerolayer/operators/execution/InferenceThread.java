package io.zerolayer.operators.execution;

import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One thread that runs a slot's batches in the order they are handed over, at most one per key at a
 * time, so the thread that hands them over (Flink's task thread) stays free. A key's batch is its
 * own until {@link #take}n, done or not: whoever hands batches over also collects them. Knows
 * nothing of Flink.
 *
 * @param <K> what batches are keyed by
 * @param <R> what a batch returns
 */
public final class InferenceThread<K, R> implements AutoCloseable {
    private final ExecutorService thread;
    private final ConcurrentMap<K, Future<R>> handed = new ConcurrentHashMap<>();

    /**
     * @param name the thread's name
     * @param contextClassLoader the thread's context class loader (the job's user code)
     */
    public InferenceThread(String name, ClassLoader contextClassLoader) {
        this.thread =
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, name);
                            t.setDaemon(true);
                            t.setContextClassLoader(contextClassLoader);
                            return t;
                        });
    }

    /**
     * Hands {@code key}'s batch over; it runs after those handed over before.
     *
     * @throws IllegalStateException when the key has a batch not yet taken
     */
    public void submit(K key, Callable<R> batch) {
        submit(key, batch, null);
    }

    /**
     * Hands {@code key}'s batch over, and calls {@code whenDone} with the key on this thread once
     * the batch is {@link #done} (returned or threw), so the caller need not poll for it.
     *
     * @param whenDone called once the batch is done; null for none
     * @throws IllegalStateException when the key has a batch not yet taken
     */
    public void submit(K key, Callable<R> batch, Consumer<K> whenDone) {
        if (handed.containsKey(key)) {
            throw new IllegalStateException("Key " + key + " has a batch not yet taken");
        }
        FutureTask<R> task =
                new FutureTask<>(batch) {
                    @Override
                    protected void done() {
                        // after the result is set: done(key) is true for whoever is told
                        if (whenDone != null && !isCancelled()) {
                            whenDone.accept(key);
                        }
                    }
                };
        // handed before it can run, so that whoever is told it is done finds it
        handed.put(key, task);
        try {
            thread.execute(task);
        } catch (RuntimeException stopped) {
            handed.remove(key);
            throw stopped;
        }
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
}

package io.zerolayer.operators.scheduling;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Fault injection, for tests ({@link ExecutorSetup#crashAfterRequests}): an executor slot fails
 * after this many requests, once per JVM, so a restarted job runs on.
 */
public final class InjectedCrash {
    private static final AtomicBoolean CRASHED = new AtomicBoolean();

    private final long afterRequests;
    private long seen;

    /**
     * @param afterRequests requests a slot takes before it fails; 0: never
     */
    public InjectedCrash(long afterRequests) {
        this.afterRequests = afterRequests;
    }

    /**
     * Counts a request.
     *
     * @throws IllegalStateException when it is the one the crash was injected after
     */
    public void request() {
        if (afterRequests > 0 && ++seen >= afterRequests && CRASHED.compareAndSet(false, true)) {
            throw new IllegalStateException(
                    "Injected crash after "
                            + seen
                            + " requests (fault-injection.crash-after-requests)");
        }
    }

    /** Whether an injected crash happened in this JVM. */
    public static boolean happened() {
        return CRASHED.get();
    }

    /** Lets a job started after this crash once more (tests only). */
    public static void reset() {
        CRASHED.set(false);
    }
}

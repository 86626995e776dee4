package io.zerolayer.operators.scheduling;

/**
 * Where an executor key is: only a request's arrival, its flush timer and the signal that its batch
 * is done move it on.
 *
 * <pre>
 * IDLE ──arrival──▶ QUEUED ──start──▶ RUNNING ──batch done──▶ DONE ──answered──▶ QUEUED or IDLE
 *  └──────────────────arrival, thread idle──────▶ RUNNING
 * </pre>
 */
public enum KeyPhase {
    /** Nothing of the key is here. */
    IDLE,
    /**
     * Requests wait for their batch (a flush timer set), or a restore left a batch to run again.
     */
    QUEUED,
    /** Its batch runs on the slot's inference thread; its requests are in flight. */
    RUNNING,
    /** Its batch finished; the mailbox action that answers it is on its way. */
    DONE;

    /**
     * @param running a batch of the key is on the inference thread
     * @param done that batch finished
     * @param waiting requests wait for a batch, or a restore left some in flight
     */
    public static KeyPhase of(boolean running, boolean done, boolean waiting) {
        if (running) {
            return done ? DONE : RUNNING;
        }
        return waiting ? QUEUED : IDLE;
    }
}

package io.zerolayer.operators.execution;

import java.util.function.LongSupplier;

/**
 * How a batch's encoder work is cut into slices, and what happens between them: each encoder run is
 * kept within {@code sliceMicros} of estimated time (the graph's own estimate per padded token; a
 * single sequence longer than that still runs whole), and between two runs {@code pause} lets other
 * work run — the {@link InferenceThread}'s batches due first — and returns the nanoseconds it took.
 *
 * <p>The runs depend only on the batch and {@code sliceMicros}, never on whether anything ran
 * between them, so a batch interleaved with others gives the answers it gives alone.
 *
 * @param sliceMicros most estimated time of one encoder run; {@link Long#MAX_VALUE}: runs as the
 *     plan cuts them, however long
 * @param pause runs other work between two runs; returns the nanoseconds it took, which the batch's
 *     own time limits do not count
 */
public record SliceBoundary(long sliceMicros, LongSupplier pause) {
    /** Runs as the plan cuts them, with nothing in between. */
    public static final SliceBoundary NONE = new SliceBoundary(Long.MAX_VALUE, () -> 0);

    public SliceBoundary {
        if (sliceMicros <= 0) {
            throw new IllegalArgumentException("A slice must be positive, got " + sliceMicros);
        }
        java.util.Objects.requireNonNull(pause, "pause");
    }

    /** Lets other work run; the nanoseconds it took. */
    public long between() {
        return pause.getAsLong();
    }
}

package io.zerolayer.gpu;

/**
 * How ONNX Runtime's CUDA provider grows its memory arena ({@code arena_extend_strategy}). The
 * setting's text is ONNX Runtime's own name of each.
 */
public enum ArenaExtendStrategy {
    /** Doubles the arena each time it grows: fewer allocations, more memory held. */
    NEXT_POWER_OF_TWO("kNextPowerOfTwo"),
    /** Grows by what was asked: the least memory, more allocations. */
    SAME_AS_REQUESTED("kSameAsRequested");

    private final String onnxName;

    ArenaExtendStrategy(String onnxName) {
        this.onnxName = onnxName;
    }

    /** ONNX Runtime's name, which is also how the setting is written. */
    @Override
    public String toString() {
        return onnxName;
    }
}

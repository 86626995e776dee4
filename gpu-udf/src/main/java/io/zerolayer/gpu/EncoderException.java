package io.zerolayer.gpu;

/** A failure inside ONNX Runtime or the tokenizer, naming the model and the input that hit it. */
public class EncoderException extends RuntimeException {
    private final boolean overran;

    public EncoderException(String message, Throwable cause) {
        this(message, cause, false);
    }

    /**
     * @param overran the run was cancelled because it overran its time limit
     */
    public EncoderException(String message, Throwable cause, boolean overran) {
        super(message, cause);
        this.overran = overran;
    }

    /** Whether the run was cancelled for overrunning its time limit rather than failing. */
    public boolean overran() {
        return overran;
    }

    public EncoderException(String message) {
        this(message, null, false);
    }
}

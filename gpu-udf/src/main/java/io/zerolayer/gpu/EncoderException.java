package io.zerolayer.gpu;

/** A failure inside ONNX Runtime or the tokenizer, naming the model and the input that hit it. */
public class EncoderException extends RuntimeException {
    public EncoderException(String message, Throwable cause) {
        super(message, cause);
    }

    public EncoderException(String message) {
        super(message);
    }
}

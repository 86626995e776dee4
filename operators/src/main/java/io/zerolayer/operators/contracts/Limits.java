package io.zerolayer.operators.contracts;

/** Bounds beyond which a prompt's structure is abnormal (SAFE graph or rejection). */
public record Limits(
        long maxPromptBytes,
        int maxDepth,
        int maxTags,
        int maxAttributeLength,
        int safeModeMaxChars) {
    public static final Limits DEFAULTS = new Limits(32L << 20, 32, 10_000, 4096, 16_384);
}

package io.zerolayer.operators.prompt;

/**
 * A run of prompt text.
 *
 * @param offset character offset of {@code text} in the whole prompt
 */
public record TextNode(String text, int offset, int line, int column) implements PromptNode {}

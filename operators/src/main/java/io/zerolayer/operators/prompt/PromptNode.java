package io.zerolayer.operators.prompt;

/** A node of a parsed prompt: a tag with children, or a run of text. */
public sealed interface PromptNode permits TagNode, TextNode {
    /** 1-based line of the node's first character. */
    int line();

    /** 1-based column of the node's first character. */
    int column();
}

package io.zerolayer.operators.eval;

/**
 * One text of a labelled corpus and its right answer.
 *
 * @param id where it comes from (file and position), for messages
 * @param text the text as the corpus has it
 * @param label the corpus's own label for it
 */
public record LabelledText(String id, String text, String label) {}

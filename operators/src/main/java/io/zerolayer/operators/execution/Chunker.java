package io.zerolayer.operators.execution;

import io.zerolayer.gpu.TokenizedText;
import io.zerolayer.operators.structure.DocumentContent.TextRun;
import io.zerolayer.operators.tasks.Chunk;
import java.text.BreakIterator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Cuts tokenized text runs into chunks that fit the encoder. Chunks never cross a run, so they
 * never cross a tag: each section chunks on its own.
 *
 * <ul>
 *   <li>{@code sentences}: one chunk per sentence (long sentences split into windows) — the units
 *       an extractive summary picks from.
 *   <li>{@code windows}: overlapping windows of {@code window} tokens advancing by {@code stride}.
 * </ul>
 */
public final class Chunker {
    private final String strategy;
    private final int window;
    private final int stride;

    public Chunker(String strategy, int window, int stride) {
        if (!strategy.equals("sentences") && !strategy.equals("windows")) {
            throw new IllegalArgumentException("Unknown chunk strategy '" + strategy + "'");
        }
        if (stride <= 0 || stride > window) {
            throw new IllegalArgumentException(
                    "Chunk stride must be in 1.." + window + ", got " + stride);
        }
        this.strategy = strategy;
        this.window = window;
        this.stride = stride;
    }

    public List<Chunk> chunk(String scope, String prompt, TextRun run, TokenizedText tokens) {
        List<Chunk> out = new ArrayList<>();
        if (tokens.size() == 0) {
            return out;
        }
        if (strategy.equals("windows")) {
            windows(scope, prompt, run, tokens, 0, tokens.size(), out);
            return out;
        }
        BreakIterator sentences = BreakIterator.getSentenceInstance(Locale.ENGLISH);
        sentences.setText(run.text());
        int token = 0;
        for (int end = sentences.next();
                end != BreakIterator.DONE && token < tokens.size();
                end = sentences.next()) {
            int first = token;
            while (token < tokens.size() && tokens.starts()[token] < end) {
                token++;
            }
            if (token > first) {
                windows(scope, prompt, run, tokens, first, token, out);
            }
        }
        return out;
    }

    private void windows(
            String scope,
            String prompt,
            TextRun run,
            TokenizedText tokens,
            int from,
            int to,
            List<Chunk> out) {
        for (int start = from; start < to; start += stride) {
            int end = Math.min(start + window, to);
            int charStart = run.offset() + tokens.starts()[start];
            int charEnd = run.offset() + tokens.ends()[end - 1];
            out.add(
                    new Chunk(
                            scope,
                            Arrays.copyOfRange(tokens.ids(), start, end),
                            charStart,
                            charEnd,
                            prompt.substring(charStart, charEnd)));
            if (end == to) {
                break;
            }
        }
    }
}

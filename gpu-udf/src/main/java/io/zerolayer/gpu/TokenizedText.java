package io.zerolayer.gpu;

/**
 * A text's token ids (no special tokens) with each token's character span in that text.
 *
 * @param starts inclusive character offset of each token
 * @param ends exclusive character offset of each token
 */
public record TokenizedText(long[] ids, int[] starts, int[] ends) {
    public int size() {
        return ids.length;
    }
}

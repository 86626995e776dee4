package io.zerolayer.gpu;

/**
 * From the encoder's last hidden state to one (unit) vector a text ({@link #pool}), and how alike
 * two such vectors are ({@link #cosine}): plain arithmetic on what {@link SentenceEncoder} returns.
 */
public final class Pooling {
    private Pooling() {}

    /**
     * The model's pooling ({@code [CLS]}'s state, or the mean over real tokens), then L2
     * normalisation where the model asks for it: one vector per text.
     */
    public static float[][] pool(EncoderModel model, TokenBatch batch, float[] hidden) {
        int h = model.hiddenSize();
        float[][] vectors = new float[batch.batchSize()][h];
        for (int b = 0; b < batch.batchSize(); b++) {
            float[] v = vectors[b];
            if (model.pooling() == EncoderModel.PoolingMode.CLS) {
                System.arraycopy(hidden, b * batch.seqLen() * h, v, 0, h);
                if (model.normalize()) {
                    normalize(v);
                }
                continue;
            }
            int count = 0;
            for (int t = 0; t < batch.seqLen(); t++) {
                if (batch.attentionMask()[b * batch.seqLen() + t] == 0) {
                    continue;
                }
                count++;
                int base = (b * batch.seqLen() + t) * h;
                for (int k = 0; k < h; k++) {
                    v[k] += hidden[base + k];
                }
            }
            for (int k = 0; k < h; k++) {
                v[k] /= Math.max(count, 1);
            }
            if (model.normalize()) {
                normalize(v);
            }
        }
        return vectors;
    }

    /** Scales {@code v} to unit length in place (a zero vector stays zero). */
    public static void normalize(float[] v) {
        double norm = 0;
        for (float x : v) {
            norm += x * x;
        }
        float inv = (float) (1.0 / Math.max(Math.sqrt(norm), 1e-12));
        for (int k = 0; k < v.length; k++) {
            v[k] *= inv;
        }
    }

    /** Cosine similarity of two unit vectors produced by {@link #pool}. */
    public static double cosine(float[] a, float[] b) {
        double dot = 0;
        for (int i = 0; i < a.length; i++) {
            dot += a[i] * b[i];
        }
        return dot;
    }
}

package io.zerolayer.operators.heads;

import io.zerolayer.schemas.Sha256;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A linear classification head on a document's vector: each label's logit is {@code w·v + b}, and
 * its probability the softmax of the logits. Linear, so a document's logits are the token-weighted
 * mean of its sentences' logits ({@link #logits}), which is how a split document's parts combine
 * exactly. The temperature the fit calibrated is already in the weights.
 *
 * @param kind how it was fit: {@code logistic} (L2-regularised logistic regression, one against the
 *     rest) or {@code centroid} (nearest class mean)
 * @param labels the classes, in the order of the weights' rows
 * @param weights one row per label, the encoder's dimensions wide
 * @param bias one per label
 */
public record ClassifierHead(String kind, List<String> labels, float[][] weights, float[] bias)
        implements Serializable {

    public ClassifierHead {
        labels = List.copyOf(labels);
        if (weights.length != labels.size() || bias.length != labels.size()) {
            throw new IllegalArgumentException(
                    "A head needs one weight row and one bias per label");
        }
    }

    /** The encoder dimensions the head reads. */
    public int dimensions() {
        return weights[0].length;
    }

    /** Each label's logit for vector {@code v}. */
    public double[] logits(float[] v) {
        double[] out = new double[labels.size()];
        for (int l = 0; l < out.length; l++) {
            float[] w = weights[l];
            double s = bias[l];
            for (int k = 0; k < w.length; k++) {
                s += w[k] * v[k];
            }
            out[l] = s;
        }
        return out;
    }

    /** FLOPs of the logits of {@code vectors} vectors. */
    public long flops(long vectors) {
        return 2L * vectors * labels.size() * (dimensions() + 1);
    }

    /** The softmax of {@code logits}. */
    public static double[] probabilities(double[] logits) {
        double max = Double.NEGATIVE_INFINITY;
        for (double z : logits) {
            max = Math.max(max, z);
        }
        double[] p = new double[logits.length];
        double sum = 0;
        for (int l = 0; l < p.length; l++) {
            p[l] = Math.exp(logits[l] - max);
            sum += p[l];
        }
        for (int l = 0; l < p.length; l++) {
            p[l] /= sum;
        }
        return p;
    }

    /**
     * SHA-256 over the kind, labels and every weight's bits: two heads with one hash compute alike,
     * so the hash stands for the weights in the plan and its graph id.
     */
    public String sha256() {
        byte[] names =
                (kind + "\n" + String.join("\u0000", labels) + "\n")
                        .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer bits =
                ByteBuffer.allocate(names.length + 4 * labels.size() * (dimensions() + 1))
                        .order(ByteOrder.LITTLE_ENDIAN);
        bits.put(names);
        for (int l = 0; l < labels.size(); l++) {
            for (float w : weights[l]) {
                bits.putFloat(w);
            }
            bits.putFloat(bias[l]);
        }
        return Sha256.hex(bits.array());
    }
}

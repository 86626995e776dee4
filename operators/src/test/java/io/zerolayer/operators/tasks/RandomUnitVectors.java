package io.zerolayer.operators.tasks;

import io.zerolayer.gpu.EncoderModel;
import java.util.Random;

/** Random unit-length sentence vectors of the encoder's width, as the encoder's output is. */
final class RandomUnitVectors {
    private RandomUnitVectors() {}

    static float[] next(Random random) {
        float[] v = new float[EncoderModel.MINILM_L6_V2_FP32.hiddenSize()];
        double n = 0;
        for (int k = 0; k < v.length; k++) {
            v[k] = (float) random.nextGaussian();
            n += v[k] * v[k];
        }
        for (int k = 0; k < v.length; k++) {
            v[k] /= (float) Math.sqrt(n);
        }
        return v;
    }
}

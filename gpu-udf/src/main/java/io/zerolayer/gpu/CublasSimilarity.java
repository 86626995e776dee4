package io.zerolayer.gpu;

import static org.bytedeco.cuda.global.cublas.CUBLAS_OP_N;
import static org.bytedeco.cuda.global.cublas.CUBLAS_OP_T;
import static org.bytedeco.cuda.global.cublas.cublasCreate_v2;
import static org.bytedeco.cuda.global.cublas.cublasDestroy_v2;
import static org.bytedeco.cuda.global.cublas.cublasSgemm_v2;
import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyDeviceToHost;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;

import org.bytedeco.cuda.cublas.cublasContext;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;

/**
 * Dot products of many sentence vectors on the GPU: the Gram matrix G = V Vᵀ by one cuBLAS SGEMM
 * (copies included), for decoders that compare every sentence with every other. One per slot, bound
 * to its CUDA device; not thread-safe.
 */
public final class CublasSimilarity implements AutoCloseable {
    private final int device;
    private final cublasContext handle = new cublasContext();

    private CublasSimilarity(int device) {
        this.device = device;
        check(cudaSetDevice(device), "cudaSetDevice");
        check(cublasCreate_v2(handle), "cublasCreate");
    }

    /** cuBLAS on {@code device}, or null (and the reason at DEBUG) where it cannot load. */
    public static CublasSimilarity tryCreate(int device) {
        try {
            Loader.load(org.bytedeco.cuda.global.cublas.class);
            return new CublasSimilarity(device);
        } catch (Throwable e) { // UnsatisfiedLinkError, NoClassDefFoundError, no device
            org.slf4j.LoggerFactory.getLogger(CublasSimilarity.class)
                    .debug("cuBLAS not usable on device {}: {}", device, e.toString());
            return null;
        }
    }

    /** G[i][j] = v_i · v_j for the {@code n} vectors of {@code vectors} (each {@code h} floats). */
    public float[][] gram(float[][] vectors) {
        int n = vectors.length;
        int h = n == 0 ? 0 : vectors[0].length;
        float[][] out = new float[n][n];
        if (n == 0) {
            return out;
        }
        float[] flat = new float[n * h];
        for (int i = 0; i < n; i++) {
            System.arraycopy(vectors[i], 0, flat, i * h, h);
        }
        check(cudaSetDevice(device), "cudaSetDevice");
        Pointer dv = new Pointer();
        Pointer dg = new Pointer();
        try (FloatPointer hostV = new FloatPointer(flat);
                FloatPointer hostG = new FloatPointer((long) n * n);
                FloatPointer alpha = new FloatPointer(1f);
                FloatPointer beta = new FloatPointer(0f)) {
            check(cudaMalloc(dv, (long) n * h * Float.BYTES), "cudaMalloc");
            check(cudaMalloc(dg, (long) n * n * Float.BYTES), "cudaMalloc");
            check(
                    cudaMemcpy(dv, hostV, (long) n * h * Float.BYTES, cudaMemcpyHostToDevice),
                    "copy");
            // row-major V (n×h) is column-major Vᵀ (h×n): G = (Vᵀ)ᵀ Vᵀ, symmetric
            check(
                    cublasSgemm_v2(
                            handle,
                            CUBLAS_OP_T,
                            CUBLAS_OP_N,
                            n,
                            n,
                            h,
                            alpha,
                            new FloatPointer(dv),
                            h,
                            new FloatPointer(dv),
                            h,
                            beta,
                            new FloatPointer(dg),
                            n),
                    "cublasSgemm");
            check(
                    cudaMemcpy(hostG, dg, (long) n * n * Float.BYTES, cudaMemcpyDeviceToHost),
                    "copy");
            float[] g = new float[n * n];
            hostG.get(g);
            for (int i = 0; i < n; i++) {
                System.arraycopy(g, i * n, out[i], 0, n);
            }
            return out;
        } finally {
            cudaFree(dv);
            cudaFree(dg);
        }
    }

    @Override
    public void close() {
        cublasDestroy_v2(handle);
    }

    private static void check(int status, String call) {
        if (status != 0) {
            throw new EncoderException(call + " failed with CUDA status " + status);
        }
    }
}

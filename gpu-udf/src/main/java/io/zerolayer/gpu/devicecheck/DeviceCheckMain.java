package io.zerolayer.gpu.devicecheck;

import static org.bytedeco.cuda.global.cudart.cudaDeviceSynchronize;
import static org.bytedeco.cuda.global.cudart.cudaFree;
import static org.bytedeco.cuda.global.cudart.cudaFreeHost;
import static org.bytedeco.cuda.global.cudart.cudaHostAlloc;
import static org.bytedeco.cuda.global.cudart.cudaMalloc;
import static org.bytedeco.cuda.global.cudart.cudaMemcpy;
import static org.bytedeco.cuda.global.cudart.cudaMemcpyHostToDevice;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.gpu.hardware.CudaDeviceProbe;
import io.zerolayer.gpu.hardware.DeviceReport;
import io.zerolayer.gpu.hardware.HardwareProfile;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Pointer;

/**
 * The JavaCPP half of the GPU device check ({@code gpu-udf/device-check/run.sh}), for a GPU host
 * without a JDK: discovers the CUDA devices and maps the first onto a hardware profile, measures
 * host→device copies from pinned ({@code cudaHostAlloc}) against pageable memory, and runs the
 * similarity stage (a Gram matrix of sentence vectors) on cuBLAS against the same product on the
 * CPU. Writes {@code java-report.json} with the batch sizes the compiler plans for the matched
 * profile (from {@code plan.json}, written when the bundle was built), which the Python half
 * measures the encoder at.
 *
 * <p>Without CUDA it reports so and exits 0: the report says what was and was not measured.
 */
public final class DeviceCheckMain {
    private static final ObjectMapper JSON = new ObjectMapper();

    private DeviceCheckMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: DeviceCheckMain PLAN_JSON OUT_DIR");
            System.exit(2);
        }
        ObjectNode report = run(Path.of(args[0]), new CudaDeviceProbe());
        Path out = Path.of(args[1]);
        Files.createDirectories(out);
        Files.writeString(
                out.resolve("java-report.json"),
                JSON.writerWithDefaultPrettyPrinter().writeValueAsString(report));
        System.out.println("wrote " + out.resolve("java-report.json"));
    }

    static ObjectNode run(Path planFile, io.zerolayer.gpu.hardware.DeviceProbe probe)
            throws Exception {
        ObjectNode report = JSON.createObjectNode();
        ObjectNode plan = (ObjectNode) JSON.readTree(planFile.toFile());
        List<DeviceReport> devices = probe.probe();
        ArrayNode seen = report.putArray("devices");
        devices.forEach(d -> seen.add(d.summary()));
        if (devices.isEmpty()) {
            report.put("cuda", "unavailable: no CUDA device could be opened through JavaCPP");
            System.out.println("No CUDA device: nothing on the GPU was measured");
            return report;
        }
        DeviceReport gpu = devices.get(0);
        System.out.println("device 0: " + gpu.summary());
        HardwareProfiles profiles = HardwareProfiles.builtIn();
        HardwareProfile profile =
                profiles.match(gpu).orElseGet(() -> profiles.get("gpu-generic").orElseThrow());
        report.put("cuda", "available");
        report.put("device-name", gpu.name());
        report.put("normalised-name", HardwareProfiles.normalise(gpu.name()));
        report.put("profile", profile.id());
        report.put("profile-memory-bandwidth-gbs", profile.memoryBandwidthBytesPerSec() / 1e9);
        report.put("profile-pcie-bandwidth-gbs", profile.pcieBandwidthBytesPerSec() / 1e9);
        report.set(
                "planned",
                plan.path("profiles").path(profile.id()).isMissingNode()
                        ? plan.path("profiles").path("gpu-generic")
                        : plan.path("profiles").path(profile.id()));
        System.out.println("hardware profile: " + profile.id());
        report.set("pinned", copies());
        try (io.zerolayer.gpu.HostInputBuffers inputs =
                io.zerolayer.gpu.HostInputBuffers.create(true)) {
            report.put("encoder-input-memory", inputs.kind()); // pinned where CUDA works
        }
        report.set("cublas", similarityOnCublas());
        return report;
    }

    /** Host→device bandwidth of a 64 MiB copy from pinned and from pageable host memory. */
    private static ObjectNode copies() {
        long bytes = 64L << 20;
        ObjectNode out = JSON.createObjectNode();
        Pointer device = new Pointer();
        check(cudaMalloc(device, bytes), "cudaMalloc");
        Pointer pinned = new Pointer();
        check(cudaHostAlloc(pinned, bytes, 0), "cudaHostAlloc");
        BytePointer pageable = new BytePointer(bytes);
        try {
            out.put("pinned-gbs", copyGbs(device, pinned, bytes));
            out.put("pageable-gbs", copyGbs(device, pageable, bytes));
            System.out.printf(
                    Locale.ROOT,
                    "host→device 64 MiB: pinned %.1f GB/s, pageable %.1f GB/s%n",
                    out.get("pinned-gbs").asDouble(),
                    out.get("pageable-gbs").asDouble());
        } finally {
            cudaFree(device);
            cudaFreeHost(pinned);
            pageable.close();
        }
        return out;
    }

    private static double copyGbs(Pointer device, Pointer host, long bytes) {
        check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            check(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
            check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            best = Math.min(best, System.nanoTime() - start);
        }
        return bytes / (best / 1e9) / 1e9;
    }

    /**
     * The similarity stage as the pipeline runs it ({@link io.zerolayer.gpu.CublasSimilarity}, one
     * SGEMM with its copies) against the same Gram matrix on the CPU: both times and the largest
     * difference, for n unit vectors of 384 floats.
     */
    static ObjectNode similarityOnCublas() {
        int h = 384;
        ObjectNode out = JSON.createObjectNode();
        io.zerolayer.gpu.CublasSimilarity similarity =
                io.zerolayer.gpu.CublasSimilarity.tryCreate(0);
        if (similarity == null) {
            out.put("error", "cuBLAS could not be loaded");
            return out;
        }
        ArrayNode sizes = out.putArray("sizes");
        for (int n : new int[] {256, 1024, 4096}) {
            float[] v = vectors(n, h);
            long cpuStart = System.nanoTime();
            float[] cpu = gramOnCpu(v, n, h);
            long cpuNanos = System.nanoTime() - cpuStart;
            float[][] rows = new float[n][h];
            for (int i = 0; i < n; i++) {
                System.arraycopy(v, i * h, rows[i], 0, h);
            }
            similarity.gram(rows); // warm-up: kernels, allocations
            long gpuStart = System.nanoTime();
            float[][] gpu = similarity.gram(rows);
            long gpuNanos = System.nanoTime() - gpuStart;
            double maxDiff = 0;
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    maxDiff = Math.max(maxDiff, Math.abs(cpu[i * n + j] - gpu[i][j]));
                }
            }
            sizes.addObject()
                    .put("n", n)
                    .put("cpu-ms", cpuNanos / 1e6)
                    .put("cublas-ms", gpuNanos / 1e6)
                    .put("max-abs-diff", maxDiff);
            System.out.printf(
                    Locale.ROOT,
                    "similarity %d×%d: CPU %.2f ms, cuBLAS %.2f ms (copies included), max |Δ|"
                            + " %.2e%n",
                    n,
                    n,
                    cpuNanos / 1e6,
                    gpuNanos / 1e6,
                    maxDiff);
        }
        similarity.close();
        return out;
    }

    static float[] vectors(int n, int h) {
        Random random = new Random(7);
        float[] v = new float[n * h];
        for (int i = 0; i < n; i++) {
            double norm = 0;
            for (int k = 0; k < h; k++) {
                v[i * h + k] = (float) random.nextGaussian();
                norm += v[i * h + k] * v[i * h + k];
            }
            for (int k = 0; k < h; k++) {
                v[i * h + k] /= (float) Math.sqrt(norm);
            }
        }
        return v;
    }

    /** Row-major G[i][j] = v_i · v_j. */
    static float[] gramOnCpu(float[] v, int n, int h) {
        float[] g = new float[n * n];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                float dot = 0;
                for (int k = 0; k < h; k++) {
                    dot += v[i * h + k] * v[j * h + k];
                }
                g[i * n + j] = dot;
            }
        }
        return g;
    }

    private static void check(int status, String call) {
        if (status != 0) {
            throw new IllegalStateException(call + " failed with status " + status);
        }
    }
}

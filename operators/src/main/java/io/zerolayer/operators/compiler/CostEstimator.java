package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.gpu.costmodel.OnnxCostModel;
import io.zerolayer.gpu.hardware.DeviceReport;
import io.zerolayer.gpu.hardware.HardwareProfile;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.tasks.DocumentTask;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The static cost model the compiler decides with: what each node of a graph will cost on the
 * slot's hardware for a representative request of its structure, and the plan choices that follow
 * from those costs (device, encoder precision, micro-batch size, padding).
 *
 * <p>Tokens come from the size buckets (a bucket's middle, about 4 characters a token). The encode
 * node's FLOPs and weight bytes come from the encoder's ONNX graph ({@link OnnxCostModel}),
 * activation bytes from the shapes, and its time from a roofline: max(FLOPs / (peak × product
 * efficiency) + other operators per token, bytes / bandwidth) plus the profile's launch overhead a
 * run; on a GPU the inputs and outputs also cross PCIe. FLOPs, tokens and runs are those of the
 * runs the executor would cut ({@link StructureWorkload#runs}). The host nodes (tokenize, chunk,
 * pool, decode) run on the CPU whatever the device and are estimated from the profile's per-token
 * host rates. Calibrated profiles ({@code zerolayer calibrate}) carry measured efficiency, overhead
 * and host rates; datasheet profiles carry peaks and defaults.
 *
 * <p>Every input here is a structural fact or a profile figure, so a plan stays a function of its
 * graph id.
 */
public final class CostEstimator {
    /**
     * Longest time one micro-batch may take. A batch holds its slot, and the checkpoint barrier
     * behind it, while it runs; replies are committed with checkpoints (every second by default),
     * so a batch within a second delays no commit by more than one interval.
     */
    public static final long BATCH_BUDGET_MICROS = 2_000_000;

    /** Most requests in one micro-batch. */
    public static final int MAX_BATCH = 64;

    /**
     * A batch is big enough once a request in it costs at most this share more than in the largest
     * batch.
     */
    static final double BATCH_OVERHEAD_SHARE = 0.05;

    /** Share of a GPU's memory one micro-batch's activations may take. */
    static final double BATCH_MEMORY_SHARE = 0.25;

    private final HardwareProfile profile;
    private final DeviceReport device;
    private final int threads;
    private final boolean cudaProvider;

    /**
     * @param threads intra-op threads of the slot's sessions (0: all cores); a CPU slot's peak is
     *     that of the cores it uses
     */
    public CostEstimator(HardwareProfile profile, DeviceReport device, int threads) {
        this(profile, device, threads, SentenceEncoder.cudaProviderAvailable());
    }

    /**
     * @param cudaProvider whether this JVM's ONNX Runtime has the CUDA execution provider
     */
    public CostEstimator(
            HardwareProfile profile, DeviceReport device, int threads, boolean cudaProvider) {
        this.profile = profile;
        this.device = device;
        this.threads = threads;
        this.cudaProvider = cudaProvider;
    }

    /**
     * A stand-in where no slot hardware is known (tools and tests): the built-in {@code cpu-avx2}
     * profile on a nominal 4-core 3 GHz CPU, one thread, no CUDA.
     */
    public static CostEstimator nominal() {
        HardwareProfile avx2 = HardwareProfiles.builtIn().get("cpu-avx2").orElseThrow();
        DeviceReport cpu =
                DeviceReport.cpu(
                        "nominal x86-64 CPU", 4, 3.0, 16L << 30, java.util.Set.of("avx2", "fma"));
        return new CostEstimator(avx2, cpu, 1, false);
    }

    /** What decides this estimator's figures: two estimators of equal keys estimate alike. */
    public Object key() {
        return java.util.List.of(profile, device, threads, cudaProvider);
    }

    public HardwareProfile profile() {
        return profile;
    }

    /** A choice the compiler made, and why; recorded in the graph descriptor. */
    public record Choice(String value, String reason) {}

    /** CUDA when the profile is a GPU's and this ONNX Runtime can use it; else the CPU. */
    public Choice device() {
        if (!profile.kind().equals("gpu")) {
            return new Choice("cpu", "hardware profile " + profile.id() + " is a CPU");
        }
        if (!cudaProvider) {
            return new Choice(
                    "cpu",
                    "hardware profile "
                            + profile.id()
                            + " is a GPU, but this ONNX Runtime has no CUDA provider (build with"
                            + " -Pgpu)");
        }
        return new Choice(
                "cuda", "hardware profile " + profile.id() + " is a GPU and CUDA is available");
    }

    /** Whether this estimator's plans run on CUDA. */
    public boolean onGpu() {
        return device().value().equals("cuda");
    }

    private double peak(String precision) {
        double peak = profile.peakFlops(precision, device);
        if (profile.kind().equals("cpu")
                && threads > 0
                && device != null
                && device.cores() != null
                && device.cores() > threads) {
            peak = peak * threads / device.cores();
        }
        return peak;
    }

    /** The encode node's estimate for {@code batch} requests run together. */
    public record EncodeEstimate(
            int requests,
            int sequences,
            int seqLen,
            long flops,
            long bytes,
            String bound,
            double micros) {
        public Map<String, String> params() {
            Map<String, String> out = new LinkedHashMap<>();
            out.put("estimate.sequences", String.valueOf(sequences));
            out.put("estimate.seq-len", String.valueOf(seqLen));
            out.put("estimate.flops", String.valueOf(flops));
            out.put("estimate.bytes", String.valueOf(bytes));
            out.put("estimate.bound", bound);
            out.put("estimate.micros", String.valueOf(Math.round(micros)));
            return out;
        }
    }

    /**
     * Most sequences the estimate cuts into runs itself. A bigger batch is estimated from as many
     * of its requests as fit, scaled up: by then its runs are full and pad alike. Compiling a 1 MiB
     * document took 180 ms with every sequence of its 64-request batch cut (lengths then in boxed
     * lists), 36 ms with this cap and int arrays (a paper's structure 2.7 ms; 0.2 ms with the
     * padding model before runs were cut).
     */
    static final int SIMULATED_SEQUENCES = 4096;

    /** Estimate of the encode node over {@code requests} requests of workload {@code w}. */
    public EncodeEstimate encode(EncoderModel model, StructureWorkload w, int requests) {
        OnnxCostModel graph = OnnxCostModel.of(model);
        int perRequest = w.sequences();
        // a batch beyond SIMULATED_SEQUENCES: cut as many of its requests as fit, and scale up
        int simulated =
                Math.max(1, Math.min(requests, SIMULATED_SEQUENCES / Math.max(1, perRequest)));
        double scale = (double) requests / simulated;
        List<StructureWorkload.Run> cut = StructureWorkload.runs(w, simulated);
        double runs = cut.size() * scale;
        int sequences = perRequest * requests;
        double paddedTokens = 0;
        double forwardFlops = 0;
        for (StructureWorkload.Run run : cut) {
            paddedTokens += run.paddedTokens() * scale;
            forwardFlops += graph.forwardFlops(run.sequences(), run.paddedLength()) * scale;
        }
        long tokens = Math.round(paddedTokens);
        long flops = Math.round(forwardFlops);
        int seqLen = (int) Math.round((double) tokens / sequences); // the mean padded length
        long activations = tokens * model.hiddenSize() * Float.BYTES * model.layers() * 8;
        long bytes = Math.round(runs * graph.weightBytes()) + activations; // a run reads them
        // an fp16 tier runs at the profile's fp16 peak where it has one, else as fp32
        double peak = peak(model.precision());
        if (Double.isNaN(peak) || peak <= 0) {
            peak = peak("fp32");
        }
        double computeSeconds =
                (Double.isNaN(peak) || peak <= 0 ? 0 : flops / (peak * profile.productEfficiency()))
                        + (double) tokens * profile.otherOpsMicrosPerToken() / 1e6;
        double memorySeconds =
                profile.memoryBandwidthBytesPerSec() <= 0
                        ? 0
                        : bytes / profile.memoryBandwidthBytesPerSec();
        double transferSeconds = 0;
        if (onGpu() && profile.pcieBandwidthBytesPerSec() > 0) {
            // three int64 inputs in, the last hidden state out
            long transferred =
                    tokens * (3L * Long.BYTES) + tokens * model.hiddenSize() * Float.BYTES;
            transferSeconds = transferred / profile.pcieBandwidthBytesPerSec();
        }
        double micros =
                (Math.max(computeSeconds, memorySeconds) + transferSeconds) * 1e6
                        + runs * profile.launchOverheadMicros();
        return new EncodeEstimate(
                requests,
                sequences,
                seqLen,
                flops,
                bytes,
                computeSeconds >= memorySeconds ? "compute" : "memory",
                micros);
    }

    /**
     * Estimate of a host node ({@code tokenize}, {@code chunk}, {@code pool}, {@code decode}):
     * {@code calls} fixed costs plus {@code tokens} document tokens at the profile's rates.
     */
    public Map<String, String> host(String kind, double tokens, int calls) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("estimate.tokens", String.valueOf(Math.round(tokens)));
        double micros =
                calls * profile.hostMicrosPerCall(kind) + tokens * profile.hostMicrosPerToken(kind);
        out.put("estimate.micros", String.valueOf(Math.max(1, Math.round(micros))));
        return out;
    }

    /**
     * The encoder precision: fp32 where the decoder needs its fidelity or the device cannot run the
     * int8 model well, else int8 when it saves at least {@code minSavingMicros} a request.
     */
    public Choice precision(String decoder, StructureWorkload w, long minSavingMicros) {
        if (decoder.equals("embed") || decoder.equals("answer")) {
            return new Choice(
                    "fp32",
                    "decoder '"
                            + decoder
                            + "' returns a vector or single passages: fp32 keeps"
                            + " their fidelity");
        }
        if (onGpu()) {
            return new Choice(
                    "fp32",
                    "the int8 encoder is dynamically quantised and ONNX Runtime's CUDA provider"
                            + " has no DynamicQuantizeLinear kernel (every layer would round-trip"
                            + " to the host): fp32 on CUDA");
        }
        double fp32 = encode(EncoderModel.MINILM_L6_V2_FP32, w, 1).micros();
        double int8 = encode(EncoderModel.MINILM_L6_V2_INT8, w, 1).micros();
        double saving = fp32 - int8;
        String figures =
                String.format(
                        Locale.ROOT, "fp32 ≈ %.1f ms, int8 ≈ %.1f ms", fp32 / 1e3, int8 / 1e3);
        if (saving >= minSavingMicros) {
            return new Choice(
                    "int8",
                    figures
                            + String.format(
                                    Locale.ROOT,
                                    " a request: int8 saves %.1f ms (≥ %d ms)",
                                    saving / 1e3,
                                    minSavingMicros / 1000));
        }
        return new Choice(
                "fp32",
                figures
                        + String.format(
                                Locale.ROOT,
                                " a request: int8 would save %.1f ms (< %d ms), not worth its loss",
                                saving / 1e3,
                                minSavingMicros / 1000));
    }

    /**
     * The micro-batch size: the smallest power of two at which a request costs at most {@value
     * #BATCH_OVERHEAD_SHARE} more than in the largest batch ({@value #MAX_BATCH} requests) — what a
     * bigger batch saves is each run's fixed cost and the padding of runs that mix short and long
     * sequences — but no larger than what fits the batch time budget and (on a GPU) a quarter of
     * device memory. Under light load a batch runs with what arrived within the queue delay, so the
     * size only matters when requests queue.
     */
    public Choice batchSize(EncoderModel model, StructureWorkload w) {
        EncodeEstimate one = encode(model, w, 1);
        double alone = one.micros();
        double best = encode(model, w, MAX_BATCH).micros() / MAX_BATCH;
        int budgetCap = 1;
        while (budgetCap * 2 <= MAX_BATCH
                && encode(model, w, budgetCap * 2).micros() <= BATCH_BUDGET_MICROS) {
            budgetCap *= 2;
        }
        int memoryCap = MAX_BATCH;
        if (onGpu() && profile.memoryGb() != null) {
            double perRequestBytes = one.bytes() - OnnxCostModel.of(model).weightBytes();
            memoryCap =
                    (int)
                            Math.max(
                                    1,
                                    Math.min(
                                            MAX_BATCH,
                                            profile.memoryGb()
                                                    * 1e9
                                                    * BATCH_MEMORY_SHARE
                                                    / Math.max(1, perRequestBytes)));
        }
        int wanted = 1;
        while (wanted < MAX_BATCH
                && encode(model, w, wanted).micros() / wanted > (1 + BATCH_OVERHEAD_SHARE) * best) {
            wanted *= 2;
        }
        int size = Math.max(1, Math.min(wanted, Math.min(budgetCap, memoryCap)));
        double atSize = encode(model, w, size).micros() / size;
        String figures =
                String.format(
                        Locale.ROOT,
                        "a request ≈ %.2f ms of encoding alone, %.2f ms in a batch of %d, %.2f ms"
                                + " at best (fixed cost per run and padding shared)",
                        alone / 1e3,
                        atSize / 1e3,
                        size,
                        best / 1e3);
        String why;
        if (size == wanted) {
            why =
                    String.format(
                            Locale.ROOT,
                            "%d requests a run come within %.0f%% of the best",
                            size,
                            100 * BATCH_OVERHEAD_SHARE);
        } else if (size == budgetCap) {
            why =
                    String.format(
                            Locale.ROOT,
                            "%d requests a run stay within the %d ms batch budget",
                            size,
                            BATCH_BUDGET_MICROS / 1000);
        } else {
            why =
                    String.format(
                            Locale.ROOT,
                            "%d requests a run keep activations within %.0f%% of device memory",
                            size,
                            100 * BATCH_MEMORY_SHARE);
        }
        return new Choice(String.valueOf(size), figures + "; " + why);
    }

    /**
     * How long a request of this workload may wait for batch companions: as long as the request is
     * estimated to take encoding alone (at least 1 ms). Waiting that long at most bounds what
     * batching adds to a request's latency by its own run time, and under load gives the queue time
     * to fill, so each run shares its fixed cost and pads little — a fixed short delay leaves
     * batches of one or two when requests trickle in between runs, and those cost nearly twice as
     * much each. The executor caps it with {@code zerolayer.batch.max-queue-delay}.
     */
    public Choice queueDelay(EncoderModel model, StructureWorkload w) {
        double alone = encode(model, w, 1).micros();
        long millis = Math.max(1, Math.round(alone / 1e3));
        return new Choice(
                String.valueOf(millis),
                String.format(
                        Locale.ROOT,
                        "a request waits for companions at most as long as it would take alone"
                                + " (≈ %.1f ms)",
                        alone / 1e3));
    }

    /**
     * How a batch's sequences are padded: to the longest on a CPU (dynamic shapes cost nothing
     * there), to a power-of-two bucket on a GPU so the provider sees few distinct shapes and keeps
     * its tuned kernels and memory arena.
     */
    public Choice padding() {
        return onGpu()
                ? new Choice(
                        "pow2",
                        "CUDA: pad to a power-of-two length so kernels and arena blocks are reused"
                                + " across batches")
                : new Choice("longest", "CPU: pad to the longest sequence of the batch");
    }

    /** Java's scalar dot-product loops: about a GFLOP/s on one core. */
    static final double CPU_DOT_FLOPS = 1e9;

    /**
     * Where a summary's sentence similarities run: cuBLAS (one n × n SGEMM) when the plan runs on
     * CUDA and that plus its copies beats the CPU's loops, which need only O(n·d): each sentence
     * against the sum of all ({@code ExtractiveSummary.centralities}).
     */
    public Choice similarity(StructureWorkload w, int dims) {
        int n = Math.max(1, w.sequences() - w.querySequences());
        double flops = DocumentTask.centralityFlops(n, dims);
        double cpu = flops / CPU_DOT_FLOPS * 1e6;
        if (!onGpu()) {
            return new Choice(
                    "cpu",
                    String.format(
                            Locale.ROOT,
                            "%d sentences, %.2f ms of dot products on the CPU",
                            n,
                            cpu / 1e3));
        }
        double bytes = (double) n * dims * Float.BYTES + (double) n * n * Float.BYTES;
        double gpu =
                profile.launchOverheadMicros()
                        + (profile.pcieBandwidthBytesPerSec() > 0
                                ? bytes / profile.pcieBandwidthBytesPerSec() * 1e6
                                : 0);
        String figures =
                String.format(
                        Locale.ROOT,
                        "%d sentences: %.2f ms of dot products on the CPU, %.2f ms on cuBLAS with"
                                + " copies",
                        n,
                        cpu / 1e3,
                        gpu / 1e3);
        return gpu < cpu ? new Choice("cublas", figures) : new Choice("cpu", figures);
    }
}

package io.zerolayer.gpu;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.CharSpan;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import io.zerolayer.gpu.quantization.PerRowQuantization;
import java.io.IOException;
import java.io.InputStream;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ONNX Runtime session of a sentence encoder plus its tokenizer. The three steps of a graph's
 * encoder path are separate methods, so each can be timed and billed as its own kernel: {@link
 * #tokenize} → {@link #encode} (the ONNX run) → {@link Pooling#pool} (the model's pooling + L2
 * norm).
 *
 * <p>Created once per task slot (it loads ~23–133 MB of weights, checked against the catalog's
 * SHA-256 once per JVM), safe for concurrent use, and must be closed; use after {@link #close()}
 * fails with a clear message.
 */
public final class SentenceEncoder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SentenceEncoder.class);

    /**
     * Longest sequence fed to the model, special tokens included; MiniLM was trained at 128, BGE at
     * 512. A catalog model must accept this many positions.
     */
    public static final int MAX_SEQUENCE_LENGTH = 256;

    private final EncoderModel model;
    private final String checksum;
    private final OrtEnvironment env;
    private final OrtSession session;
    private final HuggingFaceTokenizer tokenizer;
    private final boolean wantsTokenTypes;
    private final long clsId;
    private final long sepId;
    private volatile boolean closed;
    private String device = "cpu";
    private boolean batchInvariant = true;

    private SentenceEncoder(
            EncoderModel model,
            String checksum,
            OrtEnvironment env,
            OrtSession session,
            HuggingFaceTokenizer tokenizer)
            throws OrtException {
        this.model = model;
        this.checksum = checksum;
        this.env = env;
        this.session = session;
        this.tokenizer = tokenizer;
        Set<String> inputs = session.getInputNames();
        this.wantsTokenTypes = inputs.contains("token_type_ids");
        long[] framed = tokenizer.encode("", true, false).getIds();
        if (framed.length != 2) {
            throw new EncoderException(
                    "Tokenizer of " + model.id() + " does not frame text as [CLS] … [SEP]");
        }
        this.clsId = framed[0];
        this.sepId = framed[1];
        this.queryPrefixIds = prefixIds(model.queryPrefix());
        this.passagePrefixIds = prefixIds(model.passagePrefix());
    }

    private long[] prefixIds(String prefix) {
        return prefix.isEmpty() ? new long[0] : tokenizer.encode(prefix, false, false).getIds();
    }

    /** The catalog's query prefix, tokenized; empty where the model has none. */
    private final long[] queryPrefixIds;

    private final long[] passagePrefixIds;

    /**
     * A search query's ids as the model wants them: its catalog query prefix (BGE's instruction)
     * before the query's own tokens.
     */
    public long[] queryIds(String query) {
        return concat(queryPrefixIds, tokenizeText(query).ids());
    }

    /** A passage's (a chunk's) ids with the catalog's passage prefix before them. */
    public long[] passageIds(long[] chunkIds) {
        return passagePrefixIds.length == 0 ? chunkIds : concat(passagePrefixIds, chunkIds);
    }

    private static long[] concat(long[] a, long[] b) {
        if (a.length == 0) {
            return b;
        }
        long[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * Loads the model's weights and tokenizer from the classpath and creates a CPU session.
     *
     * @param intraOpThreads ONNX Runtime intra-op threads; 0 lets ONNX Runtime choose
     */
    public static SentenceEncoder open(EncoderModel model, int intraOpThreads) {
        return open(model, intraOpThreads, ExecutionDevice.CPU);
    }

    /**
     * Opens the model on {@code target}. A CUDA target gets ONNX Runtime's CUDA execution provider
     * (device id, memory limit, arena strategy from {@code target}); where that provider is missing
     * (the CPU build) or cannot start (no driver, no device), the session runs on the CPU instead,
     * with one WARN per JVM, and {@link #device()} says so.
     */
    public static SentenceEncoder open(
            EncoderModel model, int intraOpThreads, ExecutionDevice target) {
        long start = System.nanoTime();
        byte[] weights;
        try (InputStream in = model.openWeights()) {
            weights = in.readAllBytes();
        } catch (IOException e) {
            throw new EncoderException("Cannot read the weights of encoder " + model.id(), e);
        }
        ModelCatalog.verify(model, weights);
        String checksum = model.sha256();
        try (InputStream tokenizerJson = model.openTokenizer()) {
            HuggingFaceTokenizer tokenizer =
                    HuggingFaceTokenizer.newInstance(
                            tokenizerJson,
                            Map.of(
                                    "truncation",
                                    "false",
                                    "padding",
                                    "false",
                                    "addSpecialTokens",
                                    "false"));
            OrtEnvironment env = OrtEnvironment.getEnvironment();
            OrtSession.SessionOptions options = new OrtSession.SessionOptions();
            options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
            if (intraOpThreads > 0) {
                options.setIntraOpNumThreads(intraOpThreads);
            }
            String device = "cpu";
            if (target.isCuda()) {
                device = CudaProvider.addTo(options, target) ? target.toString() : "cpu";
            }
            PerRowQuantization.Result graph = PerRowQuantization.rewrite(weights);
            if (!graph.batchInvariant()) {
                LOG.warn(
                        "Encoder {}: {} DynamicQuantizeLinear node(s) feed something other than"
                                + " MatMulInteger and keep one activation scale per run, so its"
                                + " answers depend on the requests batched beside them",
                        model.id(),
                        graph.kept());
            }
            OrtSession session = env.createSession(graph.model(), options);
            LOG.info(
                    "Opened ONNX session {} (sha256 {}…) on {} in {} ms{}",
                    model.id(),
                    checksum.substring(0, 12),
                    device,
                    (System.nanoTime() - start) / 1_000_000,
                    graph.rewritten() > 0
                            ? ", " + graph.rewritten() + " activation quantisers made per row"
                            : "");
            SentenceEncoder encoder = new SentenceEncoder(model, checksum, env, session, tokenizer);
            encoder.device = device;
            encoder.batchInvariant = graph.batchInvariant();
            return encoder;
        } catch (OrtException | IOException e) {
            throw new EncoderException(
                    "Cannot open encoder " + model.id() + ": " + e.getMessage(), e);
        }
    }

    public EncoderModel model() {
        return model;
    }

    /** Hex SHA-256 of the ONNX weights (verified); part of every graph id. */
    public String checksum() {
        return checksum;
    }

    /**
     * Whether a text's output is independent of what it is batched with: true unless the model
     * quantises activations dynamically in a way {@link PerRowQuantization} cannot make per row.
     */
    public boolean batchInvariant() {
        return batchInvariant;
    }

    /** Where this session runs: {@code cpu} or {@code cuda:N}. */
    public String device() {
        return device;
    }

    /**
     * Tokenizes a whole text without truncation or special tokens, keeping each token's character
     * span so chunks can be mapped back to the text.
     */
    public TokenizedText tokenizeText(String text) {
        checkOpen();
        Encoding encoding = tokenizer.encode(text, false, false);
        CharSpan[] spans = encoding.getCharTokenSpans();
        int[] starts = new int[spans.length];
        int[] ends = new int[spans.length];
        for (int i = 0; i < spans.length; i++) {
            // special or unknown tokens may lack a span; pin them to the previous token's end
            starts[i] = spans[i] == null ? (i == 0 ? 0 : ends[i - 1]) : spans[i].getStart();
            ends[i] = spans[i] == null ? starts[i] : spans[i].getEnd();
        }
        return new TokenizedText(encoding.getIds(), starts, ends);
    }

    /**
     * Frames each id sequence as {@code [CLS] ids [SEP]}, truncating to {@link
     * #MAX_SEQUENCE_LENGTH}, and pads the batch to its longest sequence.
     */
    public TokenBatch batch(List<long[]> contentIds) {
        checkOpen();
        if (contentIds.isEmpty()) {
            throw new IllegalArgumentException("Nothing to encode: the batch is empty");
        }
        int batch = contentIds.size();
        int seqLen = 0;
        for (long[] ids : contentIds) {
            seqLen = Math.max(seqLen, Math.min(ids.length, MAX_SEQUENCE_LENGTH - 2) + 2);
        }
        long[] ids = new long[batch * seqLen];
        long[] mask = new long[batch * seqLen];
        long[] types = new long[batch * seqLen];
        long real = 0;
        for (int i = 0; i < batch; i++) {
            long[] content = contentIds.get(i);
            int n = Math.min(content.length, MAX_SEQUENCE_LENGTH - 2);
            int base = i * seqLen;
            ids[base] = clsId;
            System.arraycopy(content, 0, ids, base + 1, n);
            ids[base + n + 1] = sepId;
            java.util.Arrays.fill(mask, base, base + n + 2, 1L);
            real += n + 2;
        }
        return new TokenBatch(ids, mask, types, batch, seqLen, real);
    }

    /** Tokenizes short texts (queries, labels, sentences) straight into a batch. */
    public TokenBatch tokenize(List<String> texts) {
        List<long[]> ids = new java.util.ArrayList<>(texts.size());
        for (String t : texts) {
            ids.add(tokenizeText(t).ids());
        }
        return batch(ids);
    }

    /** Runs the encoder; returns the last hidden state, {@code [batch * seqLen * hidden size]}. */
    public float[] encode(TokenBatch batch) {
        return encode(batch, 0);
    }

    /** Cancels runs that overrun their time limit; one daemon thread for the JVM. */
    private static final java.util.concurrent.ScheduledExecutorService WATCHDOG =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
                    r -> {
                        Thread t = new Thread(r, "zerolayer-onnx-watchdog");
                        t.setDaemon(true);
                        return t;
                    });

    /**
     * Runs the encoder, cancelled through ONNX Runtime's {@code RunOptions.setTerminate} once it
     * has run for {@code timeoutNanos} (0: no limit).
     *
     * @throws EncoderException when the run fails or was cancelled ({@link
     *     EncoderException#overran()})
     */
    public float[] encode(TokenBatch batch, long timeoutNanos) {
        checkOpen();
        if (timeoutNanos <= 0) {
            return run(batch, null);
        }
        try (OrtSession.RunOptions options = new OrtSession.RunOptions()) {
            Object lock = new Object();
            boolean[] state = new boolean[2]; // {done, terminated}
            java.util.concurrent.ScheduledFuture<?> watchdog =
                    WATCHDOG.schedule(
                            () -> {
                                synchronized (lock) {
                                    if (!state[0]) {
                                        try {
                                            options.setTerminate(true);
                                            state[1] = true;
                                        } catch (OrtException e) {
                                            LOG.warn("Could not cancel an overrunning run", e);
                                        }
                                    }
                                }
                            },
                            timeoutNanos,
                            java.util.concurrent.TimeUnit.NANOSECONDS);
            try {
                return run(batch, options);
            } catch (EncoderException e) {
                synchronized (lock) {
                    if (state[1]) {
                        throw new EncoderException(
                                model.id()
                                        + " overran its "
                                        + timeoutNanos / 1_000_000
                                        + " ms limit on a batch of "
                                        + batch.batchSize()
                                        + " x "
                                        + batch.seqLen()
                                        + " tokens and was cancelled",
                                e,
                                true);
                    }
                }
                throw e;
            } finally {
                watchdog.cancel(false);
                synchronized (lock) {
                    state[0] = true;
                }
            }
        } catch (OrtException e) {
            throw new EncoderException(
                    "Cannot create ONNX Runtime run options: " + e.getMessage(), e);
        }
    }

    /** Off-heap (pinned on CUDA) input buffers, reused from run to run under {@code this}. */
    private HostInputBuffers inputBuffers;

    /** {@code pinned} or {@code direct}: where this encoder's inputs are written. */
    public synchronized String inputMemory() {
        return buffers().kind();
    }

    private HostInputBuffers buffers() {
        if (inputBuffers == null) {
            inputBuffers = HostInputBuffers.create(device.startsWith("cuda"));
        }
        return inputBuffers;
    }

    private synchronized float[] run(TokenBatch batch, OrtSession.RunOptions options) {
        long[] shape = {batch.batchSize(), batch.seqLen()};
        HostInputBuffers in = buffers();
        try (OnnxTensor ids = OnnxTensor.createTensor(env, in.fill(0, batch.inputIds()), shape);
                OnnxTensor mask =
                        OnnxTensor.createTensor(env, in.fill(1, batch.attentionMask()), shape);
                OnnxTensor types =
                        OnnxTensor.createTensor(env, in.fill(2, batch.tokenTypeIds()), shape)) {
            Map<String, OnnxTensor> inputs =
                    wantsTokenTypes
                            ? Map.of(
                                    "input_ids",
                                    ids,
                                    "attention_mask",
                                    mask,
                                    "token_type_ids",
                                    types)
                            : Map.of("input_ids", ids, "attention_mask", mask);
            try (OrtSession.Result result =
                    options == null ? session.run(inputs) : session.run(inputs, options)) {
                OnnxTensor hidden = (OnnxTensor) result.get(0);
                FloatBuffer buffer = hidden.getFloatBuffer();
                float[] out = new float[buffer.remaining()];
                buffer.get(out);
                return out;
            }
        } catch (OrtException e) {
            throw new EncoderException(
                    "ONNX Runtime failed running "
                            + model.id()
                            + " on a batch of "
                            + batch.batchSize()
                            + " x "
                            + batch.seqLen()
                            + " tokens: "
                            + e.getMessage(),
                    e);
        }
    }

    /** tokenize → encode → pool in one call, for callers that do not bill the steps apart. */
    public float[][] embed(List<String> texts) {
        TokenBatch batch = tokenize(texts);
        return Pooling.pool(model, batch, encode(batch));
    }

    /**
     * Version of the ONNX Runtime library and whether it carries the CUDA provider ({@code +cuda},
     * the {@code -Pgpu} build); part of every graph id, since a plan may choose CUDA only where the
     * runtime has it.
     */
    public static String runtimeVersion() {
        return "onnxruntime-"
                + OrtEnvironment.getEnvironment().getVersion()
                + (cudaProviderAvailable() ? "+cuda" : "");
    }

    /** Whether the loaded ONNX Runtime has the CUDA execution provider (onnxruntime_gpu). */
    public static boolean cudaProviderAvailable() {
        return OrtEnvironment.getAvailableProviders().contains(ai.onnxruntime.OrtProvider.CUDA);
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(
                    "Encoder " + model.id() + " was closed; open a new one");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            session.close();
        } catch (OrtException e) {
            LOG.warn("Closing ONNX session {} failed", model.id(), e);
        }
        tokenizer.close();
        synchronized (this) {
            if (inputBuffers != null) {
                inputBuffers.close(); // pinned memory is not the garbage collector's
                inputBuffers = null;
            }
        }
    }
}

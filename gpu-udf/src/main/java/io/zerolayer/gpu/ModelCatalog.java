package io.zerolayer.gpu;

import io.zerolayer.gpu.costmodel.OnnxCostModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The encoders this JVM knows: those of {@code flink-conf/model-catalog.yaml} (built into the jar)
 * and those a user's catalog file adds ({@link #install}). Models are data here, not code: the
 * compiler, the cost model, {@code zerolayer eval} and the executor read an encoder's shape,
 * pooling and prefixes from its entry, so a user's own encoder is treated like the shipped ones.
 *
 * <p>A user's entry is checked when it is installed: its files exist, the weights' SHA-256 is the
 * entry's, the ONNX graph is as wide as the entry says, and one run returns a hidden state of that
 * width. Each failure is an error that names the entry and what to fix.
 */
public final class ModelCatalog {
    static final String BUILT_IN = "/zerolayer/model-catalog.yaml";

    private static final Set<String> FIELDS =
            Set.of(
                    "family",
                    "precision",
                    "layers",
                    "hidden-size",
                    "ffn-size",
                    "pooling",
                    "normalize",
                    "query-prefix",
                    "passage-prefix",
                    "onnx",
                    "tokenizer",
                    "sha256",
                    "source");

    /** Encoders added from catalog files, by id, in the order they were added. */
    private static final Map<String, EncoderModel> INSTALLED =
            Collections.synchronizedMap(new LinkedHashMap<>());

    /** Ids whose weights this JVM has hashed and found as the catalog says. */
    private static final Set<String> VERIFIED = ConcurrentHashMap.newKeySet();

    private ModelCatalog() {}

    /** The shipped encoder of {@code id}; used to build {@link EncoderModel}'s constants. */
    static EncoderModel shipped(String id) {
        EncoderModel m = Shipped.MODELS.get(id);
        if (m == null) {
            throw new IllegalStateException(
                    "The built-in model catalog " + BUILT_IN + " lacks encoder " + id);
        }
        return m;
    }

    /** Parsed on first use, after {@link EncoderModel}'s own initialisation has begun. */
    private static final class Shipped {
        static final Map<String, EncoderModel> MODELS = readBuiltIn();
    }

    private static Map<String, EncoderModel> readBuiltIn() {
        try (InputStream in = ModelCatalog.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException(
                        "Built-in model catalog " + BUILT_IN + " missing from the classpath");
            }
            Map<String, EncoderModel> out = new LinkedHashMap<>();
            for (EncoderModel m :
                    parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), null)) {
                out.put(m.id(), m);
            }
            return Collections.unmodifiableMap(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every known encoder: the shipped ones first, then the installed ones. */
    public static List<EncoderModel> all() {
        List<EncoderModel> out = new ArrayList<>(shippedModels().values());
        synchronized (INSTALLED) {
            out.addAll(INSTALLED.values());
        }
        return out;
    }

    /** The encoder of {@code id}, shipped or installed. */
    public static EncoderModel byId(String id) {
        EncoderModel m = shippedModels().get(id);
        if (m == null) {
            m = INSTALLED.get(id);
        }
        if (m == null) {
            throw new IllegalArgumentException(
                    "Unknown encoder model '"
                            + id
                            + "'; known: "
                            + String.join(", ", all().stream().map(EncoderModel::id).toList())
                            + " (add your own with zerolayer.models.file)");
        }
        return m;
    }

    /** Whether an encoder of {@code id} is known. */
    public static boolean knows(String id) {
        return shippedModels().containsKey(id) || INSTALLED.containsKey(id);
    }

    /** Model id → SHA-256 of its weights, for every known encoder, sorted by id. */
    public static SortedMap<String, String> checksums() {
        SortedMap<String, String> out = new TreeMap<>();
        for (EncoderModel m : all()) {
            out.put(m.id(), m.sha256());
        }
        return out;
    }

    private static Map<String, EncoderModel> shippedModels() {
        // through EncoderModel, so its constants are built before anyone reads the catalog
        return EncoderModel.MINILM_L6_V2_FP32 == null ? Map.of() : Shipped.MODELS;
    }

    /**
     * Adds the encoders of the catalog file {@code file} (its relative paths resolve against the
     * file's folder), each checked as the class comment says. Installing the same entries again is
     * a no-op; another entry under a known id is an error.
     *
     * @return the encoders the file declares
     */
    public static List<EncoderModel> install(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "Cannot read the model catalog " + file + ": " + e.getMessage(), e);
        }
        Path base = file.toAbsolutePath().getParent();
        List<EncoderModel> models = parse(text, base);
        for (EncoderModel m : models) {
            EncoderModel known = shippedModels().get(m.id());
            if (known != null) {
                throw new IllegalArgumentException(
                        "Model catalog "
                                + file
                                + ": "
                                + m.id()
                                + " is a shipped encoder; give yours another id");
            }
            synchronized (INSTALLED) {
                EncoderModel before = INSTALLED.get(m.id());
                if (before != null && !sameEntry(before, m)) {
                    throw new IllegalArgumentException(
                            "Model catalog "
                                    + file
                                    + ": encoder "
                                    + m.id()
                                    + " is already installed with other settings");
                }
                if (before == null) {
                    check(m);
                    INSTALLED.put(m.id(), m);
                }
            }
        }
        return models;
    }

    /** Drops the installed encoders; for tests. */
    static void uninstallAll() {
        INSTALLED.clear();
    }

    private static boolean sameEntry(EncoderModel a, EncoderModel b) {
        return a.sha256().equals(b.sha256())
                && a.onnxLocation().equals(b.onnxLocation())
                && a.tokenizer().equals(b.tokenizer())
                && a.hiddenSize() == b.hiddenSize()
                && a.layers() == b.layers()
                && a.pooling() == b.pooling()
                && a.queryPrefix().equals(b.queryPrefix())
                && a.passagePrefix().equals(b.passagePrefix());
    }

    /** The checks of a user's entry: files, checksum, the graph's width, one run's output. */
    static void check(EncoderModel m) {
        verify(m);
        try (InputStream in = m.openTokenizer()) {
            in.readNBytes(1);
        } catch (IOException e) {
            throw new EncoderException("Cannot read the tokenizer of encoder " + m.id(), e);
        }
        long graphWidth = OnnxCostModel.of(m).hidden();
        if (graphWidth != m.hiddenSize()) {
            throw new IllegalArgumentException(
                    "Encoder "
                            + m.id()
                            + ": the catalog says hidden-size "
                            + m.hiddenSize()
                            + " but the ONNX graph at "
                            + m.onnxLocation()
                            + " is "
                            + graphWidth
                            + " wide");
        }
        try (SentenceEncoder probe = SentenceEncoder.open(m, 1)) {
            TokenBatch batch = probe.tokenize(List.of("a probe of the encoder's output shape"));
            float[] hidden = probe.encode(batch);
            long expected = (long) batch.batchSize() * batch.seqLen() * m.hiddenSize();
            if (hidden.length != expected) {
                throw new IllegalArgumentException(
                        "Encoder "
                                + m.id()
                                + ": a run over "
                                + batch.seqLen()
                                + " tokens returned "
                                + hidden.length
                                + " values, not "
                                + batch.seqLen()
                                + " × hidden-size "
                                + m.hiddenSize()
                                + "; the first output must be the last hidden state"
                                + " [batch, tokens, hidden]");
            }
        }
    }

    /**
     * Hashes {@code m}'s weights (once per JVM) and fails unless they are the catalog's: a graph id
     * names the weights by this checksum, so other weights must never run under it.
     */
    public static void verify(EncoderModel m) {
        if (VERIFIED.contains(m.id())) {
            return;
        }
        verify(m, sha256(m));
    }

    /** As {@link #verify(EncoderModel)}, for weights already read into memory. */
    static void verify(EncoderModel m, byte[] weights) {
        if (!VERIFIED.contains(m.id())) {
            verify(m, Sha256.hex(weights));
        }
    }

    private static void verify(EncoderModel m, String actual) {
        if (!actual.equals(m.sha256())) {
            throw new EncoderException(
                    "The weights of encoder "
                            + m.id()
                            + " at "
                            + m.onnxLocation()
                            + " have SHA-256 "
                            + actual
                            + ", not the catalog's "
                            + m.sha256());
        }
        VERIFIED.add(m.id());
    }

    private static String sha256(EncoderModel m) {
        try (InputStream in = m.openWeights()) {
            return Sha256.hex(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The entries of a catalog's YAML ({@code models:} id → fields).
     *
     * @param base the folder relative file paths resolve against; null where every path must be a
     *     classpath resource (the built-in catalog)
     */
    static List<EncoderModel> parse(String yamlText, Path base) {
        Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yamlText);
        if (!(root instanceof Map<?, ?> top) || !(top.get("models") instanceof Map<?, ?> models)) {
            throw new IllegalArgumentException("A model catalog is a map with a 'models' map");
        }
        List<EncoderModel> out = new ArrayList<>();
        for (Map.Entry<?, ?> e : models.entrySet()) {
            String id = String.valueOf(e.getKey());
            if (!id.matches("[a-z0-9][a-z0-9._-]{0,63}")) {
                throw new IllegalArgumentException(
                        "Model id '"
                                + id
                                + "': lower-case letters, digits, '.', '_' and '-', at most 64");
            }
            if (!(e.getValue() instanceof Map<?, ?> fields)) {
                throw new IllegalArgumentException("Model " + id + ": its entry must be a map");
            }
            for (Object key : fields.keySet()) {
                if (!FIELDS.contains(String.valueOf(key))) {
                    throw new IllegalArgumentException(
                            "Model "
                                    + id
                                    + ": unknown field '"
                                    + key
                                    + "'; known: "
                                    + new java.util.TreeSet<>(FIELDS));
                }
            }
            out.add(entry(id, fields, base));
        }
        return out;
    }

    private static EncoderModel entry(String id, Map<?, ?> f, Path base) {
        String precision = text(id, f, "precision", null).toLowerCase(Locale.ROOT);
        if (!Set.of("fp32", "fp16", "int8").contains(precision)) {
            throw new IllegalArgumentException(
                    "Model " + id + ": precision must be fp32, fp16 or int8, not " + precision);
        }
        String pooling = text(id, f, "pooling", "mean").toUpperCase(Locale.ROOT);
        EncoderModel.PoolingMode mode;
        try {
            mode = EncoderModel.PoolingMode.valueOf(pooling);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Model " + id + ": pooling must be mean or cls, not " + pooling.toLowerCase());
        }
        String sha = text(id, f, "sha256", null).toLowerCase(Locale.ROOT);
        if (!sha.matches("[0-9a-f]{64}")) {
            throw new IllegalArgumentException(
                    "Model " + id + ": sha256 must be the 64 hex digits of the weights' SHA-256");
        }
        return new EncoderModel(
                id,
                text(id, f, "family", id),
                precision,
                number(id, f, "layers"),
                number(id, f, "hidden-size"),
                number(id, f, "ffn-size"),
                mode,
                !"false".equals(String.valueOf(f.get("normalize"))),
                text(id, f, "query-prefix", ""),
                text(id, f, "passage-prefix", ""),
                location(id, text(id, f, "onnx", null), base),
                location(id, text(id, f, "tokenizer", null), base),
                sha,
                text(id, f, "source", ""));
    }

    private static String location(String id, String value, Path base) {
        if (value.startsWith("classpath:")) {
            return value;
        }
        if (base == null) {
            throw new IllegalArgumentException(
                    "Built-in model " + id + ": files must be classpath: resources");
        }
        Path path = base.resolve(value).normalize();
        if (!Files.isRegularFile(path)) {
            throw new IllegalArgumentException(
                    "Model " + id + ": no file at " + path + " (from '" + value + "')");
        }
        return path.toString();
    }

    private static String text(String id, Map<?, ?> f, String key, String fallback) {
        Object v = f.get(key);
        if (v == null) {
            if (fallback == null) {
                throw new IllegalArgumentException("Model " + id + ": '" + key + "' is required");
            }
            return fallback;
        }
        return String.valueOf(v);
    }

    private static int number(String id, Map<?, ?> f, String key) {
        Object v = f.get(key);
        if (!(v instanceof Integer n) || n <= 0) {
            throw new IllegalArgumentException(
                    "Model " + id + ": '" + key + "' must be a positive integer, not " + v);
        }
        return n;
    }
}

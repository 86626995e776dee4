package io.zerolayer.operators.quality;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The measured quality of each encoder tier per decoder, read from a quality profile ({@code
 * zerolayer eval}'s output; the shipped one is {@code flink-conf/quality-profiles.yaml}). What the
 * compiler chooses tiers by:
 *
 * <ul>
 *   <li>{@code classify}: the mean zero-shot accuracy over the classification corpora;
 *   <li>{@code answer} and {@code extract} (both search a document's passages for a query): the
 *       FAQ's passage top-1;
 *   <li>{@code summarize} and {@code embed}, which have no labelled answer here: the mean of the
 *       two, how well the tier's vectors separate meaning.
 * </ul>
 *
 * A tier measured with other weights than the catalog's (its SHA-256 differs) counts as not
 * measured.
 */
public final class QualityProfile implements java.io.Serializable {
    static final String BUILT_IN = "/zerolayer/quality-profiles.yaml";

    /** model id → "dataset.metric" → value. */
    private final Map<String, Map<String, Double>> scores;

    /** model id → the SHA-256 it was measured with. */
    private final Map<String, String> measuredWeights;

    private final String source;

    private QualityProfile(
            Map<String, Map<String, Double>> scores, Map<String, String> weights, String source) {
        this.scores = scores;
        this.measuredWeights = weights;
        this.source = source;
    }

    /**
     * The profile compilers in this JVM choose by: the built-in one unless {@link #use} set one.
     */
    private static volatile QualityProfile active;

    /** The profile this JVM's compilers choose tiers by. */
    public static QualityProfile active() {
        QualityProfile p = active;
        return p != null ? p : BuiltIn.PROFILE;
    }

    /**
     * Makes the profile of {@code file} (null: the built-in one) the one this JVM's compilers use,
     * as {@code zerolayer.quality-profiles.file} names it; read and checked now.
     */
    public static void use(String file) {
        active = file == null ? null : load(file);
    }

    private static final class BuiltIn {
        static final QualityProfile PROFILE = builtIn();
    }

    /** The profile built into the jar. */
    public static QualityProfile builtIn() {
        try (InputStream in = QualityProfile.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException(
                        "Built-in quality profile " + BUILT_IN + " missing from the classpath");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), "built-in");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The profile in {@code file}, or the built-in one where {@code file} is null. */
    public static QualityProfile load(String file) {
        if (file == null) {
            return builtIn();
        }
        try {
            return parse(Files.readString(Path.of(file)), file);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "Cannot read the quality profile " + file + ": " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    public static QualityProfile parse(String yaml, String source) {
        Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        if (!(root instanceof Map<?, ?> top) || !(top.get("tiers") instanceof Map<?, ?> tiers)) {
            throw new IllegalArgumentException(
                    "Quality profile " + source + ": a map with a 'tiers' map expected");
        }
        Map<String, Map<String, Double>> scores = new HashMap<>();
        Map<String, String> weights = new HashMap<>();
        for (Map.Entry<?, ?> t : tiers.entrySet()) {
            String id = String.valueOf(t.getKey());
            Map<String, Object> tier = (Map<String, Object>) t.getValue();
            weights.put(id, String.valueOf(tier.get("sha256")));
            Map<String, Double> figures = new HashMap<>();
            if (tier.get("scores") instanceof Map<?, ?> s) {
                for (Map.Entry<?, ?> e : s.entrySet()) {
                    if (e.getValue() instanceof Map<?, ?> m && m.get("value") instanceof Number v) {
                        figures.put(String.valueOf(e.getKey()), v.doubleValue());
                    }
                }
            }
            scores.put(id, figures);
        }
        return new QualityProfile(scores, weights, source);
    }

    /** Where the profile was read from, for reasons and messages. */
    public String source() {
        return source;
    }

    /**
     * The measured quality of {@code model} (with weights {@code sha256}) for {@code decoder}'s
     * task; empty where it was not measured.
     */
    public OptionalDouble quality(String model, String sha256, String decoder) {
        Map<String, Double> s = scores.get(model);
        if (s == null || !sha256.equals(measuredWeights.get(model))) {
            return OptionalDouble.empty();
        }
        OptionalDouble classify = mean(s, ".accuracy");
        OptionalDouble answer = mean(s, ".top1");
        return switch (decoder) {
            case "classify" -> classify;
            case "answer", "extract" -> answer;
            default ->
                    classify.isPresent() && answer.isPresent()
                            ? OptionalDouble.of((classify.getAsDouble() + answer.getAsDouble()) / 2)
                            : OptionalDouble.empty();
        };
    }

    private static OptionalDouble mean(Map<String, Double> s, String suffix) {
        List<Double> values = new ArrayList<>();
        s.forEach(
                (k, v) -> {
                    if (k.endsWith(suffix)) {
                        values.add(v);
                    }
                });
        return values.stream().mapToDouble(Double::doubleValue).average();
    }
}

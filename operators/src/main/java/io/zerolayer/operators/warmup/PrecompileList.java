package io.zerolayer.operators.warmup;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The structures of {@code flink-conf/precompile.yaml}, each given by an example prompt, that the
 * executor compiles when it opens.
 */
public record PrecompileList(List<Structure> structures) implements Serializable {
    public static final PrecompileList NONE = new PrecompileList(List.of());

    /** The copy of {@code flink-conf/precompile.yaml} built into the jar. */
    static final String BUILT_IN = "/zerolayer/precompile.yaml";

    /** The list the job ships: {@code flink-conf/precompile.yaml} as built into the jar. */
    public static PrecompileList builtIn() {
        try (java.io.InputStream in = PrecompileList.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException("Built-in " + BUILT_IN + " missing from the jar");
            }
            return parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A named example prompt. */
    public record Structure(String name, String prompt) implements Serializable {}

    @SuppressWarnings("unchecked")
    public static PrecompileList parse(String yamlText) {
        Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yamlText);
        if (root == null) {
            return NONE;
        }
        if (!(root instanceof Map<?, ?> map) || !(map.get("structures") instanceof List<?> list)) {
            throw new IllegalArgumentException(
                    "precompile.yaml must hold a 'structures' list of {name, prompt}");
        }
        List<Structure> out = new ArrayList<>();
        for (Object item : list) {
            Map<String, Object> m = (Map<String, Object>) item;
            Object name = m.get("name");
            Object prompt = m.get("prompt");
            if (name == null || prompt == null) {
                throw new IllegalArgumentException(
                        "Every entry of precompile.yaml needs a name and a prompt, got "
                                + m.keySet());
            }
            out.add(new Structure(String.valueOf(name), String.valueOf(prompt)));
        }
        return new PrecompileList(List.copyOf(out));
    }
}

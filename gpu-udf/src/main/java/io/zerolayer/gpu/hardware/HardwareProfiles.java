package io.zerolayer.gpu.hardware;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The profiles of {@code flink-conf/hardware-profiles.yaml} and the mapping from a detected device
 * to one of them.
 */
public final class HardwareProfiles {
    static final Set<String> INTERESTING_FLAGS =
            Set.of(
                    "avx",
                    "avx2",
                    "fma",
                    "avx512f",
                    "avx512_vnni",
                    "avx512_bf16",
                    "amx_tile",
                    "avx_vnni");
    private static final String BUILT_IN = "/zerolayer/hardware-profiles.yaml";

    /** Words device names carry that say nothing about the device. */
    private static final Pattern VENDOR_WORDS =
            Pattern.compile("\\b(nvidia|tesla|geforce|quadro|corporation|graphics)\\b");

    private final Map<String, HardwareProfile> profiles;

    private HardwareProfiles(Map<String, HardwareProfile> profiles) {
        this.profiles = profiles;
    }

    public static HardwareProfiles builtIn() {
        try (InputStream in = HardwareProfiles.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException(
                        "Built-in hardware profiles " + BUILT_IN + " missing from the classpath");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The built-in profiles plus (overriding by id) those of {@code extraYaml}, e.g. written by
     * {@code zerolayer calibrate}; null or blank adds none.
     */
    public static HardwareProfiles builtInWith(String extraYaml) {
        HardwareProfiles builtIn = builtIn();
        if (extraYaml == null || extraYaml.isBlank()) {
            return builtIn;
        }
        Map<String, HardwareProfile> merged = new LinkedHashMap<>(builtIn.profiles);
        merged.putAll(parseProfiles(extraYaml));
        return new HardwareProfiles(merged);
    }

    public static HardwareProfiles parse(String yamlText) {
        Map<String, HardwareProfile> profiles = parseProfiles(yamlText);
        for (String required : List.of("cpu-generic", "gpu-generic")) {
            if (!profiles.containsKey(required)) {
                throw new IllegalArgumentException(
                        "hardware-profiles.yaml must declare " + required + " (the fallback)");
            }
        }
        return new HardwareProfiles(profiles);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, HardwareProfile> parseProfiles(String yamlText) {
        Map<String, Object> root =
                new Yaml(new SafeConstructor(new LoaderOptions())).load(yamlText);
        Map<String, Object> list = (Map<String, Object>) root.get("profiles");
        if (list == null || list.isEmpty()) {
            throw new IllegalArgumentException("hardware-profiles.yaml declares no profiles");
        }
        Map<String, HardwareProfile> profiles = new LinkedHashMap<>();
        list.forEach((id, spec) -> profiles.put(id, profile(id, (Map<String, Object>) spec)));
        return profiles;
    }

    @SuppressWarnings("unchecked")
    private static HardwareProfile profile(String id, Map<String, Object> m) {
        String kind = String.valueOf(m.get("kind"));
        if (!kind.equals("cpu") && !kind.equals("gpu")) {
            throw new IllegalArgumentException(
                    "profiles." + id + ".kind must be cpu or gpu, got '" + kind + "'");
        }
        Map<String, Double> peak = new LinkedHashMap<>();
        ((Map<String, Object>) m.getOrDefault("peak-tflops", Map.of()))
                .forEach((k, v) -> peak.put(k, ((Number) v).doubleValue() * 1e12));
        Map<String, Double> perCycle = new LinkedHashMap<>();
        ((Map<String, Object>) m.getOrDefault("flops-per-cycle-per-core", Map.of()))
                .forEach((k, v) -> perCycle.put(k, ((Number) v).doubleValue()));
        return new HardwareProfile(
                id,
                kind,
                String.valueOf(m.getOrDefault("source", "")),
                peak,
                perCycle,
                number(m, "memory-bandwidth-gbs") * 1e9,
                number(m, "pcie-bandwidth-gbs") * 1e9,
                m.containsKey("memory-gb") ? number(m, "memory-gb") : null,
                strings(m.get("match")),
                strings(m.get("requires-flags")),
                m.containsKey("launch-overhead-us")
                        ? number(m, "launch-overhead-us")
                        : kind.equals("gpu") ? 200 : 2000,
                m.containsKey("product-efficiency") ? number(m, "product-efficiency") : 1.0,
                number(m, "other-ops-us-per-token"),
                hostRates(id, "host-us-per-token", m.get("host-us-per-token")),
                hostRates(id, "host-us-per-call", m.get("host-us-per-call")));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Double> hostRates(String id, String key, Object spec) {
        Map<String, Double> rates = new LinkedHashMap<>();
        if (spec == null) {
            return rates;
        }
        if (!(spec instanceof Map)) {
            throw new IllegalArgumentException(
                    "profiles." + id + "." + key + " must be a map of node kind to µs");
        }
        ((Map<String, Object>) spec)
                .forEach(
                        (k, v) -> {
                            if (!HardwareProfile.HOST_NODES.contains(k)
                                    && !k.startsWith("decode/")) {
                                throw new IllegalArgumentException(
                                        "profiles."
                                                + id
                                                + "."
                                                + key
                                                + ": unknown node kind '"
                                                + k
                                                + "'; expected one of "
                                                + HardwareProfile.HOST_NODES
                                                + " or decode/DECODER");
                            }
                            rates.put(k, ((Number) v).doubleValue());
                        });
        return rates;
    }

    public Optional<HardwareProfile> get(String id) {
        return Optional.ofNullable(profiles.get(id));
    }

    public Collection<HardwareProfile> all() {
        return profiles.values();
    }

    /** Lower case, vendor words dropped, every other run of non-alphanumerics turned into '-'. */
    public static String normalise(String deviceName) {
        String s = deviceName.toLowerCase(Locale.ROOT).replace("(r)", "").replace("(tm)", "");
        s = VENDOR_WORDS.matcher(s).replaceAll(" ");
        return s.replaceAll("[^a-z0-9]+", "-").replaceAll("^-+|-+$", "");
    }

    /**
     * The profile for a device: GPUs by name pattern (memory size breaking ties); CPUs by their
     * flags, the profile naming most of them (the most specific) first, then the richest
     * instruction set. A required flag written {@code !flag} must be absent. Empty when a GPU
     * matches nothing.
     */
    public Optional<HardwareProfile> match(DeviceReport device) {
        if (!device.isGpu()) {
            return profiles.values().stream()
                    .filter(p -> p.kind().equals("cpu") && flagsAllow(p, device.flags()))
                    .max(
                            Comparator.comparingLong(
                                            (HardwareProfile p) ->
                                                    p.requiresFlags().stream()
                                                            .filter(f -> !f.startsWith("!"))
                                                            .count())
                                    .thenComparingDouble(
                                            p ->
                                                    p.flopsPerCyclePerCore()
                                                            .getOrDefault("fp32", 0.0)));
        }
        String name = normalise(device.name());
        List<HardwareProfile> candidates = new ArrayList<>();
        for (HardwareProfile p : profiles.values()) {
            if (p.kind().equals("gpu")
                    && p.match().stream()
                            .anyMatch(re -> Pattern.compile(re).matcher(name).find())) {
                candidates.add(p);
            }
        }
        double memoryGb = device.memoryBytes() / 1e9;
        return candidates.stream()
                .min(
                        Comparator.comparingDouble(
                                p ->
                                        p.memoryGb() == null
                                                ? Double.MAX_VALUE
                                                : Math.abs(
                                                        Math.log(
                                                                p.memoryGb()
                                                                        / Math.max(
                                                                                memoryGb, 1e-9)))));
    }

    private static boolean flagsAllow(HardwareProfile p, java.util.Set<String> flags) {
        for (String f : p.requiresFlags()) {
            if (f.startsWith("!") ? flags.contains(f.substring(1)) : !flags.contains(f)) {
                return false;
            }
        }
        return true;
    }

    private static double number(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v instanceof Number n ? n.doubleValue() : 0;
    }

    private static List<String> strings(Object o) {
        if (o == null) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        ((List<?>) o).forEach(x -> out.add(String.valueOf(x)));
        return List.copyOf(out);
    }
}

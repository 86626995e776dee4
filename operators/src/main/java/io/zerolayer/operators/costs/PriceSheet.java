package io.zerolayer.operators.costs;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The price sheet ({@code flink-conf/prices.yaml}): per hardware profile, the price of compute,
 * memory traffic, PCIe traffic and device time. Turns a kernel's quantities into four
 * non-overlapping integer nano-USD components, with exact decimal arithmetic (rounded half-even
 * once, at the end).
 */
public final class PriceSheet implements Serializable {
    static final String BUILT_IN = "/zerolayer/prices.yaml";
    private static final BigDecimal NANO = BigDecimal.valueOf(1_000_000_000L);
    private static final BigDecimal PFLOP = new BigDecimal("1e15");
    private static final BigDecimal GB = new BigDecimal("1e9");
    private static final BigDecimal NANOS_PER_HOUR = new BigDecimal("3.6e12");

    /** One profile's prices, in USD. */
    public record Prices(
            Map<String, BigDecimal> computePerPflop,
            BigDecimal memoryPerGb,
            BigDecimal pciePerGb,
            BigDecimal devicePerHour)
            implements Serializable {}

    /** A kernel's bill: integer nano-USD per component. */
    public record Money(long compute, long memory, long pcie, long deviceTime) {
        public static final Money ZERO = new Money(0, 0, 0, 0);

        public long total() {
            return compute + memory + pcie + deviceTime;
        }
    }

    private final String version;
    private final Map<String, Prices> profiles;

    private PriceSheet(String version, Map<String, Prices> profiles) {
        this.version = version;
        this.profiles = profiles;
    }

    public static PriceSheet builtIn() {
        try (InputStream in = PriceSheet.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new IllegalStateException("Built-in " + BUILT_IN + " missing from the jar");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static PriceSheet load(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read price sheet " + file, e);
        }
    }

    @SuppressWarnings("unchecked")
    public static PriceSheet parse(String yaml) {
        Map<String, Object> root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        if (root == null || root.get("version") == null) {
            throw new IllegalArgumentException("A price sheet needs a version");
        }
        Object list = root.get("profiles");
        if (!(list instanceof Map<?, ?> map) || !map.containsKey("default")) {
            throw new IllegalArgumentException(
                    "A price sheet needs profiles, one of them 'default' for the rest");
        }
        Map<String, Prices> profiles = new LinkedHashMap<>();
        ((Map<String, Object>) list)
                .forEach((id, spec) -> profiles.put(id, prices(id, (Map<String, Object>) spec)));
        return new PriceSheet(String.valueOf(root.get("version")), profiles);
    }

    @SuppressWarnings("unchecked")
    private static Prices prices(String id, Map<String, Object> m) {
        Map<String, BigDecimal> compute = new LinkedHashMap<>();
        Object c = m.get("compute-usd-per-pflop");
        if (!(c instanceof Map)) {
            throw new IllegalArgumentException(
                    "profiles." + id + ".compute-usd-per-pflop must map precisions to USD");
        }
        ((Map<String, Object>) c).forEach((p, v) -> compute.put(p, price(id, p, v)));
        if (!compute.containsKey("fp32")) {
            throw new IllegalArgumentException(
                    "profiles." + id + ".compute-usd-per-pflop needs an fp32 price");
        }
        return new Prices(
                compute,
                price(id, "memory-usd-per-gb", m.get("memory-usd-per-gb")),
                price(id, "pcie-usd-per-gb", m.get("pcie-usd-per-gb")),
                price(id, "device-usd-per-hour", m.get("device-usd-per-hour")));
    }

    private static BigDecimal price(String id, String key, Object value) {
        if (!(value instanceof Number n)) {
            throw new IllegalArgumentException(
                    "profiles." + id + "." + key + " must be a number of USD, got " + value);
        }
        BigDecimal price = new BigDecimal(n.toString());
        if (price.signum() < 0) {
            throw new IllegalArgumentException("profiles." + id + "." + key + " is negative");
        }
        return price;
    }

    public String version() {
        return version;
    }

    /** The prices of a profile, or the sheet's default. */
    public Prices pricesFor(String profile) {
        return profiles.getOrDefault(profile, profiles.get("default"));
    }

    /**
     * A kernel's bill on {@code profile}: FLOPs at its precision, memory and PCIe bytes, and its
     * attributed time. Null quantities cost nothing.
     */
    public Money bill(
            String profile,
            String precision,
            Long flops,
            Long memoryBytes,
            Long pcieBytes,
            long durationNanos) {
        Prices p = pricesFor(profile);
        BigDecimal perPflop =
                p.computePerPflop().getOrDefault(precision, p.computePerPflop().get("fp32"));
        return new Money(
                nanoUsd(flops, perPflop, PFLOP),
                nanoUsd(memoryBytes, p.memoryPerGb(), GB),
                nanoUsd(pcieBytes, p.pciePerGb(), GB),
                nanoUsd(durationNanos, p.devicePerHour(), NANOS_PER_HOUR));
    }

    private static long nanoUsd(Long quantity, BigDecimal usdPerUnit, BigDecimal unit) {
        if (quantity == null || quantity == 0 || usdPerUnit.signum() == 0) {
            return 0;
        }
        return BigDecimal.valueOf(quantity)
                .multiply(usdPerUnit)
                .multiply(NANO)
                .divide(unit, 0, RoundingMode.HALF_EVEN)
                .longValueExact();
    }
}

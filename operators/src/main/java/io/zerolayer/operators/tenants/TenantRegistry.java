package io.zerolayer.operators.tenants;

import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.execution.ComplianceMode;
import io.zerolayer.schemas.auth.RequestSignature;
import io.zerolayer.schemas.auth.TenantCredentials;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Who may send requests: each tenant's id and active signing keys, from the tenants file ({@code
 * zerolayer.tenants.file}; in Kubernetes a mounted Secret).
 *
 * <pre>
 * version: 1
 * defaults:                         # optional: every tenant's quotas unless its entry says
 *   quotas: {in-flight-per-slot: 64, over-quota: reject}
 * tenants:
 *   acme:
 *     keys:
 *       2026-12: 5f0c…   # hex, at least 16 bytes: openssl rand -hex 32
 *       2027-01: 9a41…   # a second key while clients move to it
 *     quotas: {in-flight-per-slot: 16, requests-per-second: 200, encoder-tokens-per-second: 20000,
 *              over-quota: backpressure}
 *     compliance-level: 3           # 1 standard, 2 audited, 3 strict; requests may ask for more
 *     safe-mode: strict             # abnormal prompts rejected; degrade: served by the SAFE graph
 *     quality: best                 # fast, balanced or best: the encoder tier's floor, at least
 * </pre>
 *
 * Parsing is strict: an unknown setting, a duplicate name, a short or non-hex key or a third key is
 * an error naming the file, the tenant and the fix, and never quoting a key.
 */
public final class TenantRegistry {
    /** Most active keys of one tenant: the current one and the one replacing it. */
    public static final int MAX_KEYS = 2;

    /** Longest tenant id (the longest a request may carry). */
    public static final int MAX_TENANT_ID_CHARS = 256;

    private final Map<String, Tenant> tenants;
    private final TenantQuotas defaults;
    private final String origin;
    private final String digest;

    private TenantRegistry(
            Map<String, Tenant> tenants, TenantQuotas defaults, String origin, String digest) {
        this.tenants = Collections.unmodifiableMap(tenants);
        this.defaults = defaults;
        this.origin = origin;
        this.digest = digest;
    }

    /**
     * Reads a tenants file.
     *
     * @throws TenantRegistryException when it cannot be read or used
     */
    public static TenantRegistry load(Path file) {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (IOException e) {
            throw new TenantRegistryException(
                    "Cannot read the tenants file "
                            + file
                            + " (zerolayer.tenants.file): "
                            + e.getMessage(),
                    e);
        }
        return parse(new String(bytes, StandardCharsets.UTF_8), file.toString());
    }

    /**
     * Parses a tenants file's text.
     *
     * @param origin names the text in messages, e.g. its path
     * @throws TenantRegistryException naming what is wrong and where
     */
    public static TenantRegistry parse(String yaml, String origin) {
        LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        Object root;
        try {
            root = new Yaml(new SafeConstructor(options)).load(yaml);
        } catch (YAMLException e) {
            // SnakeYAML's message quotes the line, which may hold a key: keep only where it is
            throw new TenantRegistryException(
                    origin + " is not valid YAML" + where(e) + "; fix it and reload");
        }
        Map<?, ?> top = map(root, origin, "the file");
        only(top, origin, "the file", "version", "defaults", "tenants");
        if (!Integer.valueOf(1).equals(top.get("version"))) {
            throw new TenantRegistryException(
                    origin + ": version must be 1, found " + top.get("version"));
        }
        TenantQuotas defaults = TenantQuotas.DEFAULT;
        if (top.containsKey("defaults")) {
            Map<?, ?> d = map(top.get("defaults"), origin, "defaults");
            only(d, origin, "defaults", "quotas");
            defaults = quotas(d.get("quotas"), defaults, origin, "defaults");
        }
        Map<?, ?> entries = map(top.get("tenants"), origin, "tenants");
        if (entries.isEmpty()) {
            throw new TenantRegistryException(
                    origin + " names no tenant; every request would be dead-lettered");
        }
        Map<String, Tenant> tenants = new LinkedHashMap<>();
        for (Map.Entry<?, ?> e : entries.entrySet()) {
            String id = tenantId(e.getKey(), origin);
            String where = "tenant '" + id + "'";
            Map<?, ?> entry = map(e.getValue(), origin, where);
            only(
                    entry,
                    origin,
                    where,
                    "keys",
                    "quotas",
                    "compliance-level",
                    "safe-mode",
                    "quality");
            Map<?, ?> keys = map(entry.get("keys"), origin, where + " keys");
            if (keys.isEmpty() || keys.size() > MAX_KEYS) {
                throw new TenantRegistryException(
                        origin
                                + ": "
                                + where
                                + " has "
                                + keys.size()
                                + " keys; give it one, or two while rotating");
            }
            List<TenantKey> parsed = new ArrayList<>();
            for (Map.Entry<?, ?> k : keys.entrySet()) {
                if (!(k.getKey() instanceof String keyId) || keyId.isBlank()) {
                    throw new TenantRegistryException(
                            origin + ": " + where + " has a key without a name");
                }
                if (!(k.getValue() instanceof String hex)) {
                    throw new TenantRegistryException(
                            origin
                                    + ": key '"
                                    + keyId
                                    + "' of "
                                    + where
                                    + " must be a string of hex digits (quote it)");
                }
                byte[] secret;
                try {
                    secret = TenantCredentials.parseKey(hex, "key '" + keyId + "' of " + where);
                } catch (IllegalArgumentException bad) {
                    throw new TenantRegistryException(origin + ": " + bad.getMessage());
                }
                parsed.add(new TenantKey(keyId, secret));
            }
            if (parsed.size() == 2
                    && java.util.Arrays.equals(parsed.get(0).secret(), parsed.get(1).secret())) {
                throw new TenantRegistryException(
                        origin + ": " + where + " lists the same key under two names");
            }
            TenantQuotas quotas =
                    entry.containsKey("quotas")
                            ? quotas(entry.get("quotas"), defaults, origin, where)
                            : defaults;
            ComplianceMode compliance = null;
            if (entry.containsKey("compliance-level")) {
                try {
                    compliance =
                            ComplianceMode.parse(String.valueOf(entry.get("compliance-level")));
                } catch (IllegalArgumentException bad) {
                    throw new TenantRegistryException(
                            origin + ": " + where + " compliance-level: " + bad.getMessage());
                }
            }
            SafeModePolicy.Policy safeMode = null;
            if (entry.containsKey("safe-mode")) {
                try {
                    safeMode =
                            SafeModePolicy.Policy.parse(
                                    String.valueOf(entry.get("safe-mode")), where + " safe-mode");
                } catch (IllegalArgumentException bad) {
                    throw new TenantRegistryException(origin + ": " + bad.getMessage());
                }
            }
            io.zerolayer.operators.quality.QualityFloor quality = null;
            if (entry.containsKey("quality")) {
                try {
                    quality =
                            io.zerolayer.operators.quality.QualityFloor.parse(
                                    String.valueOf(entry.get("quality")));
                } catch (IllegalArgumentException bad) {
                    throw new TenantRegistryException(
                            origin + ": " + where + " " + bad.getMessage());
                }
            }
            tenants.put(id, new Tenant(id, parsed, quotas, compliance, safeMode, quality));
        }
        return new TenantRegistry(
                tenants,
                defaults,
                origin,
                RequestSignature.sha256Hex(yaml.getBytes(StandardCharsets.UTF_8)));
    }

    /** A registry of one tenant with one key (the embedded demo's, tests'). */
    public static TenantRegistry of(String tenantId, byte[] key) {
        return parse(yamlOf(Map.of(tenantId, key)), "tenant " + tenantId);
    }

    /** A tenants file holding these tenants, one key each named {@code k1}. */
    public static String yamlOf(Map<String, byte[]> keys) {
        StringBuilder yaml = new StringBuilder("version: 1\ntenants:\n");
        keys.forEach(
                (tenant, key) ->
                        yaml.append("  \"")
                                .append(tenant.replace("\\", "\\\\").replace("\"", "\\\""))
                                .append("\":\n    keys:\n      k1: \"")
                                .append(HexFormat.of().formatHex(key))
                                .append("\"\n"));
        return yaml.toString();
    }

    /** A registered tenant's quality floor; null when the file sets none for it. */
    public io.zerolayer.operators.quality.QualityFloor quality(String tenantId) {
        Tenant t = tenants.get(tenantId);
        return t == null ? null : t.quality();
    }

    /** A registered tenant's compliance level; null when the file sets none for it. */
    public ComplianceMode compliance(String tenantId) {
        Tenant t = tenants.get(tenantId);
        return t == null ? null : t.compliance();
    }

    /**
     * A registered tenant's safe-mode policy for prompts of abnormal structure; null when the file
     * sets none for it.
     */
    public SafeModePolicy.Policy safeMode(String tenantId) {
        Tenant t = tenants.get(tenantId);
        return t == null ? null : t.safeMode();
    }

    /** A tenant's quotas; for one not registered (auth none), the file's defaults. */
    public TenantQuotas quotas(String tenantId) {
        Tenant t = tenants.get(tenantId);
        return t == null ? defaults : t.quotas();
    }

    public Optional<Tenant> tenant(String id) {
        return Optional.ofNullable(tenants.get(id));
    }

    /**
     * What this deployment's own tools sign a tenant's requests with: its first key.
     *
     * @throws TenantRegistryException when the tenant is not registered
     */
    public TenantCredentials credentials(String tenantId) {
        Tenant t =
                tenant(tenantId)
                        .orElseThrow(
                                () ->
                                        new TenantRegistryException(
                                                "Tenant '"
                                                        + tenantId
                                                        + "' is not in "
                                                        + origin
                                                        + "; add it, or sign for a tenant that"
                                                        + " is"));
        return TenantCredentials.of(tenantId, t.keys().get(0).secret());
    }

    public Set<String> tenantIds() {
        return tenants.keySet();
    }

    /** Where the registry came from (a path), for logs. */
    public String origin() {
        return origin;
    }

    /** SHA-256 of the file's text: tells two versions apart in logs without showing a key. */
    public String digest() {
        return digest;
    }

    @Override
    public String toString() {
        return tenants.size()
                + " tenant(s) from "
                + origin
                + " (sha256 "
                + digest.substring(0, 12)
                + "…)";
    }

    private static String tenantId(Object key, String origin) {
        if (!(key instanceof String id) || id.isEmpty()) {
            throw new TenantRegistryException(
                    origin + ": tenant ids must be non-empty strings, found " + key);
        }
        if (id.length() > MAX_TENANT_ID_CHARS) {
            throw new TenantRegistryException(
                    origin
                            + ": tenant id '"
                            + id.substring(0, 40)
                            + "…' is longer than "
                            + MAX_TENANT_ID_CHARS
                            + " chars");
        }
        if (id.chars().anyMatch(Character::isISOControl)) {
            throw new TenantRegistryException(
                    origin
                            + ": tenant id '"
                            + id.replaceAll("\\p{Cntrl}", "?")
                            + "' holds a control character; requests could not sign it"
                            + " unambiguously");
        }
        return id;
    }

    /** Quotas from {@code value}, each one it leaves out taken from {@code base}. */
    private static TenantQuotas quotas(
            Object value, TenantQuotas base, String origin, String where) {
        String what = where + " quotas";
        Map<?, ?> q = map(value, origin, what);
        only(
                q,
                origin,
                what,
                "in-flight-per-slot",
                "requests-per-second",
                "encoder-tokens-per-second",
                "over-quota",
                "kafka-produce-bytes-per-second",
                "kafka-request-percentage");
        int inFlight =
                (int)
                        positive(
                                q.get("in-flight-per-slot"),
                                base.inFlightPerSlot(),
                                Integer.MAX_VALUE,
                                origin,
                                what + " in-flight-per-slot");
        long requests =
                positive(
                        q.get("requests-per-second"),
                        base.requestsPerSecond(),
                        Long.MAX_VALUE,
                        origin,
                        what + " requests-per-second");
        long tokens =
                positive(
                        q.get("encoder-tokens-per-second"),
                        base.encoderTokensPerSecond(),
                        Long.MAX_VALUE,
                        origin,
                        what + " encoder-tokens-per-second");
        TenantQuotas.OverQuota over = base.overQuota();
        Object o = q.get("over-quota");
        if (o != null) {
            over = null;
            for (TenantQuotas.OverQuota candidate : TenantQuotas.OverQuota.values()) {
                if (candidate.toString().equals(String.valueOf(o))) {
                    over = candidate;
                }
            }
            if (over == null) {
                throw new TenantRegistryException(
                        origin
                                + ": "
                                + what
                                + " over-quota is '"
                                + o
                                + "'; use reject or backpressure");
            }
        }
        long produceBytes =
                positive(
                        q.get("kafka-produce-bytes-per-second"),
                        base.kafkaProduceBytesPerSecond(),
                        Long.MAX_VALUE,
                        origin,
                        what + " kafka-produce-bytes-per-second");
        int requestPercentage =
                (int)
                        positive(
                                q.get("kafka-request-percentage"),
                                base.kafkaRequestPercentage(),
                                Integer.MAX_VALUE,
                                origin,
                                what + " kafka-request-percentage");
        return new TenantQuotas(inFlight, requests, tokens, over, produceBytes, requestPercentage);
    }

    private static long positive(
            Object value, long otherwise, long max, String origin, String what) {
        if (value == null) {
            return otherwise;
        }
        if (value instanceof Number n
                && !(value instanceof Double)
                && n.longValue() >= 0
                && n.longValue() <= max) {
            return n.longValue();
        }
        throw new TenantRegistryException(
                origin + ": " + what + " must be a whole number, 0 for no limit; found " + value);
    }

    private static Map<?, ?> map(Object value, String origin, String what) {
        if (value instanceof Map<?, ?> m) {
            return m;
        }
        throw new TenantRegistryException(
                origin
                        + ": "
                        + what
                        + " must be a mapping"
                        + (value == null ? " and is missing" : ", found " + kind(value))
                        + " (see docs/tenants.md)");
    }

    private static void only(Map<?, ?> m, String origin, String what, String... allowed) {
        for (Object key : m.keySet()) {
            if (!List.of(allowed).contains(key)) {
                throw new TenantRegistryException(
                        origin
                                + ": "
                                + what
                                + " has unknown setting '"
                                + key
                                + "'; allowed: "
                                + String.join(", ", allowed));
            }
        }
    }

    /** What a value is, never the value: it might be a key in the wrong place. */
    private static String kind(Object value) {
        return value instanceof List ? "a list" : "a " + value.getClass().getSimpleName();
    }

    private static String where(YAMLException e) {
        if (e instanceof org.yaml.snakeyaml.error.MarkedYAMLException marked
                && marked.getProblemMark() != null) {
            return " at line "
                    + (marked.getProblemMark().getLine() + 1)
                    + ", column "
                    + (marked.getProblemMark().getColumn() + 1)
                    + " ("
                    + marked.getProblem()
                    + ")";
        }
        return "";
    }
}

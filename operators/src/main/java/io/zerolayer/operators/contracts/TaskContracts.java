package io.zerolayer.operators.contracts;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * The task contracts of {@code flink-conf/tasks.yaml}: the tag vocabulary, each task's contract and
 * the structural limits. Parsed strictly: an unknown key or a wrong type fails with a message
 * naming it, because a silently ignored contract is worse than none.
 *
 * <pre>{@code
 * TaskContracts contracts = TaskContracts.parse(Files.readString(Path.of("flink-conf/tasks.yaml")));
 * TaskContract answer = contracts.task("answer");
 * }</pre>
 */
public final class TaskContracts {
    /** Decoders a task can name; each is a built-in computation over the encoder output. */
    public static final Set<String> DECODERS =
            Set.of("summarize", "classify", "answer", "embed", "extract");

    private static final String BUILT_IN = "/zerolayer/tasks.yaml";

    private final String version;
    private final String versionId;
    private final Limits limits;
    private final Map<String, TagSpec> tags;
    private final Map<String, TaskContract> tasks;
    private final String source;

    private TaskContracts(
            String version,
            Limits limits,
            Map<String, TagSpec> tags,
            Map<String, TaskContract> tasks,
            String source) {
        this.version = version;
        this.versionId = versionId(version, tasks);
        this.limits = limits;
        this.tags = tags;
        this.tasks = tasks;
        this.source = source;
    }

    /** The contracts built into the jar (a copy of flink-conf/tasks.yaml). */
    public static TaskContracts builtIn() {
        try (InputStream in = TaskContracts.class.getResourceAsStream(BUILT_IN)) {
            if (in == null) {
                throw new ContractException(
                        "Built-in contracts " + BUILT_IN + " missing from the classpath");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Reads a contracts file; an {@code examples-file} in it is relative to the file's folder.
     *
     * @throws ContractException naming the file and what is wrong
     */
    public static TaskContracts load(Path file) {
        try {
            return parse(
                    Files.readString(file, StandardCharsets.UTF_8),
                    file.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new ContractException(
                    "Cannot read task contracts " + file.toAbsolutePath() + ": " + e.getMessage(),
                    e);
        } catch (ContractException e) {
            throw new ContractException(file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Parses contracts that hold everything they need: an {@code examples-file} in them is refused,
     * since text that came from elsewhere (the control topic, a TaskManager's copy) must not make
     * this process read its files. {@link #load} reads a contracts file's examples files.
     */
    public static TaskContracts parse(String yamlText) {
        return parse(yamlText, null);
    }

    /**
     * Parses contracts whose {@code examples-file}s are relative to {@code baseDir}; null refuses
     * them. Examples read from a file are written inline into {@link #source()}, so the contracts
     * travel to every TaskManager, and over the control topic, with them.
     */
    private static TaskContracts parse(String yamlText, Path baseDir) {
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yamlText);
        } catch (YAMLException e) {
            throw new ContractException("Not valid YAML: " + e.getMessage(), e);
        }
        Map<String, Object> doc = map(root, "the file");
        known(doc, "the file", "version", "limits", "tags", "tasks");
        Object v = doc.get("version");
        if (v == null) {
            throw new ContractException("'version' is required: it goes into every graph id");
        }
        Limits limits =
                limits(doc.containsKey("limits") ? map(doc.get("limits"), "limits") : Map.of());
        Map<String, TagSpec> tags = new LinkedHashMap<>();
        map(doc.getOrDefault("tags", Map.of()), "tags")
                .forEach((name, spec) -> tags.put(name, tag(name, spec)));
        for (String builtIn : List.of("task", "output_format")) {
            if (!tags.containsKey(builtIn)) {
                throw new ContractException("tags." + builtIn + " is required");
            }
        }
        for (TagSpec t : tags.values()) {
            if (t.children() != null) {
                for (String child : t.children()) {
                    if (!tags.containsKey(child)) {
                        throw new ContractException(
                                "tags." + t.name() + ".children names unknown tag '" + child + "'");
                    }
                }
            }
        }
        Map<String, TaskContract> tasks = new LinkedHashMap<>();
        map(doc.get("tasks"), "tasks")
                .forEach((name, spec) -> tasks.put(name, task(name, spec, tags, baseDir)));
        if (tasks.isEmpty()) {
            throw new ContractException("'tasks' declares no task");
        }
        return new TaskContracts(
                String.valueOf(v),
                limits,
                Map.copyOf(tags),
                Map.copyOf(tasks),
                withExampleFilesInline(yamlText, doc, tasks));
    }

    /**
     * These contracts with {@code task} classifying by {@code examples}: what {@code zerolayer
     * analyze --examples} and a SQL model's {@code examples} option run. The task takes its labels
     * from the examples, so it no longer requires a {@code <labels>} tag.
     *
     * @throws ContractException when the task is unknown or does not classify, or the examples do
     *     not fit it (a label outside its declared labels)
     */
    @SuppressWarnings("unchecked")
    public TaskContracts withExamples(String task, LabelledExamples examples) {
        TaskContract contract = tasks.get(task);
        if (contract == null) {
            throw new ContractException(
                    "No task '" + task + "' to give examples to; tasks are " + taskNames());
        }
        if (!contract.decoder().equals("classify")) {
            throw new ContractException(
                    "Task '"
                            + task
                            + "' runs decoder "
                            + contract.decoder()
                            + "; only a classify task takes examples");
        }
        Map<String, Object> doc =
                (Map<String, Object>)
                        new Yaml(new SafeConstructor(new LoaderOptions())).load(source);
        Map<String, Object> tasksDoc = (Map<String, Object>) doc.get("tasks");
        Map<String, Object> spec =
                new LinkedHashMap<>(
                        tasksDoc.get(task) == null
                                ? Map.of()
                                : (Map<String, Object>) tasksDoc.get(task));
        spec.remove("examples-file");
        spec.put("examples", byLabel(examples));
        if (spec.get("requires") instanceof List<?> requires) {
            spec.put("requires", requires.stream().filter(t -> !"labels".equals(t)).toList());
        }
        tasksDoc.put(task, spec);
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setWidth(100);
        return parse(new Yaml(options).dump(doc));
    }

    /**
     * Goes into every graph id as {@code tasks-<version>}; where tasks carry examples, followed by
     * {@code +examples-} and a hash of each such task's examples and {@code min-probability}:
     * contracts taught other examples (a reload, {@code analyze --examples}, a SQL model's) are
     * other contracts even under the same {@code version}, so no compiler, warm graph or decision
     * of the old ones serves them.
     */
    public String version() {
        return versionId;
    }

    private static String versionId(String version, Map<String, TaskContract> tasks) {
        StringBuilder taught = new StringBuilder();
        new java.util.TreeMap<>(tasks)
                .forEach(
                        (name, t) -> {
                            if (t.examples() != null) {
                                taught.append(name)
                                        .append('=')
                                        .append(t.examples().sha256())
                                        .append('@')
                                        .append(t.minProbability())
                                        .append('\n');
                            }
                        });
        return "tasks-"
                + version
                + (taught.isEmpty()
                        ? ""
                        : "+examples-"
                                + io.zerolayer.schemas.Sha256.hex(taught.toString())
                                        .substring(0, 12));
    }

    public Limits limits() {
        return limits;
    }

    public TagSpec tag(String name) {
        return tags.get(name);
    }

    public Set<String> tagNames() {
        return tags.keySet();
    }

    public TaskContract task(String name) {
        return tasks.get(name);
    }

    public Set<String> taskNames() {
        return tasks.keySet();
    }

    /** The YAML this was parsed from, so operators can ship it and parse it in open(). */
    public String source() {
        return source;
    }

    private static Limits limits(Map<String, Object> m) {
        known(
                m,
                "limits",
                "max-prompt-bytes",
                "max-depth",
                "max-tags",
                "max-attribute-length",
                "safe-mode-max-chars");
        Limits d = Limits.DEFAULTS;
        return new Limits(
                number(m, "max-prompt-bytes", "limits", d.maxPromptBytes()),
                (int) number(m, "max-depth", "limits", d.maxDepth()),
                (int) number(m, "max-tags", "limits", d.maxTags()),
                (int) number(m, "max-attribute-length", "limits", d.maxAttributeLength()),
                (int) number(m, "safe-mode-max-chars", "limits", d.safeModeMaxChars()));
    }

    private static TagSpec tag(String name, Object spec) {
        String where = "tags." + name;
        Map<String, Object> m = spec == null ? Map.of() : map(spec, where);
        known(m, where, "value", "attributes", "children", "must-close");
        AttributeSpec value =
                m.containsKey("value") ? attribute(where + ".value", m.get("value")) : null;
        return new TagSpec(
                name,
                value,
                attributes(where, m.get("attributes")),
                m.containsKey("children") ? strings(m.get("children"), where + ".children") : null,
                Boolean.TRUE.equals(m.get("must-close")));
    }

    /**
     * {@code yamlText} as it is when no task reads its examples from a file; else the same
     * contracts with each {@code examples-file} replaced by the examples it held.
     */
    @SuppressWarnings("unchecked")
    private static String withExampleFilesInline(
            String yamlText, Map<String, Object> doc, Map<String, TaskContract> tasks) {
        boolean fromFiles = false;
        for (Map.Entry<String, Object> e : ((Map<String, Object>) doc.get("tasks")).entrySet()) {
            if (e.getValue() instanceof Map<?, ?> spec && spec.containsKey("examples-file")) {
                Map<String, Object> inline = new LinkedHashMap<>((Map<String, Object>) spec);
                inline.remove("examples-file");
                inline.put("examples", byLabel(tasks.get(e.getKey()).examples()));
                e.setValue(inline);
                fromFiles = true;
            }
        }
        if (!fromFiles) {
            return yamlText;
        }
        DumperOptions options = new DumperOptions();
        options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        options.setWidth(100);
        return new Yaml(options).dump(doc);
    }

    private static Map<String, List<String>> byLabel(LabelledExamples examples) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        examples.labels().forEach(l -> out.put(l, new ArrayList<>()));
        examples.examples().forEach(e -> out.get(e.label()).add(e.text()));
        return out;
    }

    private static LabelledExamples examples(
            String where, String decoder, Map<String, Object> m, Path baseDir) {
        List<String> labels =
                m.containsKey("labels") ? strings(m.get("labels"), where + ".labels") : null;
        boolean inline = m.containsKey("examples");
        boolean file = m.containsKey("examples-file");
        if (!inline && !file) {
            if (labels != null) {
                throw new ContractException(
                        where
                                + ".labels is given without examples: a task's labels come with"
                                + " its examples (examples or examples-file)");
            }
            return null;
        }
        if (!decoder.equals("classify")) {
            throw new ContractException(
                    where
                            + ": only a classify task takes examples, this one's decoder is "
                            + decoder);
        }
        if (inline && file) {
            throw new ContractException(
                    where + " has both examples and examples-file: give one of them");
        }
        if (file) {
            if (baseDir == null) {
                throw new ContractException(
                        where
                                + ".examples-file: only contracts read from a file"
                                + " (zerolayer.contracts.file) may name an examples file; give the"
                                + " examples inline");
            }
            return LabelledExamples.read(
                    baseDir.resolve(String.valueOf(m.get("examples-file"))), labels);
        }
        Map<String, List<String>> byLabel = new LinkedHashMap<>();
        map(m.get("examples"), where + ".examples")
                .forEach(
                        (label, texts) ->
                                byLabel.put(label, strings(texts, where + ".examples." + label)));
        return LabelledExamples.inline(byLabel, labels, where + ".examples");
    }

    private static TaskContract task(
            String name, Object spec, Map<String, TagSpec> tags, Path baseDir) {
        String where = "tasks." + name;
        Map<String, Object> m = spec == null ? Map.of() : map(spec, where);
        known(
                m,
                where,
                "decoder",
                "requires",
                "allows",
                "output-formats",
                "attributes",
                "max-chars",
                "quality",
                "labels",
                "examples",
                "examples-file",
                "min-probability");
        String decoder = String.valueOf(m.getOrDefault("decoder", name));
        if (!DECODERS.contains(decoder)) {
            throw new ContractException(
                    where
                            + ".decoder is '"
                            + decoder
                            + "'; use one of "
                            + DECODERS.stream().sorted().toList());
        }
        List<String> requires =
                m.containsKey("requires")
                        ? strings(m.get("requires"), where + ".requires")
                        : List.of();
        List<String> allows =
                m.containsKey("allows") ? strings(m.get("allows"), where + ".allows") : null;
        for (String t : concat(requires, allows)) {
            if (!tags.containsKey(t)) {
                throw new ContractException(
                        where + " names unknown tag '" + t + "'; declare it under tags");
            }
        }
        List<String> formats =
                m.containsKey("output-formats")
                        ? strings(m.get("output-formats"), where + ".output-formats")
                        : List.of("json", "text");
        LabelledExamples examples = examples(where, decoder, m, baseDir);
        return new TaskContract(
                name,
                decoder,
                requires,
                allows,
                formats,
                attributes(where, m.get("attributes")),
                (int) number(m, "max-chars", where, 200_000),
                quality(m.get("quality"), where),
                examples,
                minProbability(m, where, examples));
    }

    /** A task's {@code min-probability}: a number in (0, 1), only on a task with examples. */
    private static double minProbability(
            Map<String, Object> m, String where, LabelledExamples examples) {
        Object value = m.get("min-probability");
        if (value == null) {
            return Double.NaN;
        }
        if (examples == null) {
            throw new ContractException(
                    where
                            + ".min-probability needs examples: only a head fit on them gives"
                            + " probabilities that mean what they say");
        }
        double p;
        try {
            p = Double.parseDouble(String.valueOf(value));
        } catch (NumberFormatException e) {
            p = Double.NaN;
        }
        if (!(p > 0 && p < 1)) {
            throw new ContractException(
                    where + ".min-probability is '" + value + "'; give a number between 0 and 1");
        }
        return p;
    }

    private static io.zerolayer.operators.quality.QualityFloor quality(Object value, String where) {
        if (value == null) {
            return io.zerolayer.operators.quality.QualityFloor.BALANCED;
        }
        try {
            return io.zerolayer.operators.quality.QualityFloor.parse(String.valueOf(value));
        } catch (IllegalArgumentException e) {
            throw new ContractException(where + "." + e.getMessage());
        }
    }

    private static Map<String, AttributeSpec> attributes(String where, Object spec) {
        Map<String, AttributeSpec> out = new LinkedHashMap<>();
        if (spec != null) {
            map(spec, where + ".attributes")
                    .forEach((k, v) -> out.put(k, attribute(where + ".attributes." + k, v)));
        }
        return Map.copyOf(out);
    }

    private static AttributeSpec attribute(String where, Object spec) {
        Map<String, Object> m = map(spec, where);
        known(m, where, "type", "values", "required", "min", "max");
        String type = String.valueOf(m.getOrDefault("type", "string"));
        if (!Set.of("string", "int", "enum").contains(type)) {
            throw new ContractException(where + ".type is '" + type + "'; use string, int or enum");
        }
        List<String> values =
                m.containsKey("values") ? strings(m.get("values"), where + ".values") : List.of();
        if (type.equals("enum") && values.isEmpty()) {
            throw new ContractException(where + " is an enum without values");
        }
        return new AttributeSpec(
                type,
                values,
                Boolean.TRUE.equals(m.get("required")),
                m.containsKey("min") ? (int) number(m, "min", where, 0) : null,
                m.containsKey("max") ? (int) number(m, "max", where, 0) : null);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o, String where) {
        if (!(o instanceof Map<?, ?>)) {
            throw new ContractException(
                    where
                            + " must be a mapping, got "
                            + (o == null ? "nothing" : o.getClass().getSimpleName()));
        }
        for (Object key : ((Map<?, ?>) o).keySet()) {
            if (!(key instanceof String)) {
                throw new ContractException(
                        where
                                + " has key "
                                + key
                                + " that is not a name; quote it (\""
                                + key
                                + "\") if it is meant as one");
            }
        }
        return (Map<String, Object>) o;
    }

    private static List<String> strings(Object o, String where) {
        if (!(o instanceof List<?> list)) {
            throw new ContractException(where + " must be a list");
        }
        List<String> out = new ArrayList<>();
        list.forEach(x -> out.add(String.valueOf(x)));
        return List.copyOf(out);
    }

    private static long number(Map<String, Object> m, String key, String where, long fallback) {
        Object o = m.get(key);
        if (o == null) {
            return fallback;
        }
        if (!(o instanceof Number n)) {
            throw new ContractException(where + "." + key + " must be a number, got '" + o + "'");
        }
        return n.longValue();
    }

    private static void known(Map<String, Object> m, String where, String... keys) {
        Set<String> allowed = Set.of(keys);
        for (String k : m.keySet()) {
            if (!allowed.contains(k)) {
                throw new ContractException(
                        "Unknown key '"
                                + k
                                + "' in "
                                + where
                                + "; expected one of "
                                + List.of(keys));
            }
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        if (b != null) {
            out.addAll(b);
        }
        return out;
    }
}

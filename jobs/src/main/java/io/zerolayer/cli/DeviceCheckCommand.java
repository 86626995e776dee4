package io.zerolayer.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.zerolayer.gpu.EncoderModel;
import io.zerolayer.gpu.hardware.HardwareProfile;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import io.zerolayer.operators.compiler.CostEstimator;
import io.zerolayer.operators.compiler.ExecutionPlan;
import io.zerolayer.operators.compiler.GraphCompiler;
import io.zerolayer.operators.compiler.GraphIdentity;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.structure.ClassifiedPrompt;
import io.zerolayer.operators.structure.StructureClassifier;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer device-check}: builds the bundle that {@code gpu-udf/device-check/run.sh} runs
 * on a GPU host that has CUDA and Python's ONNX Runtime but no JDK and no network: a minimal Java
 * runtime made with {@code jlink}, the JavaCPP jars and ZeroLayer's GPU module (device discovery,
 * pinned buffers, the cuBLAS similarity stage), the int8 encoder, and {@code plan.json} — the batch
 * sizes and sequence lengths the compiler plans for each GPU profile.
 */
@Command(
        name = "device-check",
        mixinStandardHelpOptions = true,
        description =
                "Build the bundle gpu-udf/device-check/run.sh runs on a GPU host without a JDK.")
final class DeviceCheckCommand implements Callable<Integer> {
    /** What travels to the GPU host must stay under this. */
    static final long MAX_BUNDLE_BYTES = 60L << 20;

    /** Jars the device-side Java half needs, by file-name prefix. */
    private static final List<String> JARS =
            List.of(
                    "zerolayer-gpu-udf-",
                    "javacpp-",
                    "cuda-",
                    "snakeyaml-2",
                    "jackson-core-",
                    "jackson-databind-",
                    "jackson-annotations-",
                    "slf4j-api-");

    @Option(
            names = "--out",
            defaultValue = "gpu-udf/device-check/bundle",
            description = "Where to build the bundle (replaced). Default: ${DEFAULT-VALUE}.")
    Path out;

    @Option(
            names = "--samples",
            defaultValue = "samples",
            description = "Prompts whose plans give the batch sizes. Default: ${DEFAULT-VALUE}.")
    Path samples;

    @Option(
            names = "--jars",
            description =
                    "Folder to take the jars from (e.g. jobs/target/lib). Default: this JVM's"
                            + " classpath.")
    Path jarsFrom;

    @Override
    public Integer call() throws Exception {
        deleteRecursively(out);
        Files.createDirectories(out.resolve("lib"));
        Files.createDirectories(out.resolve("model"));
        writePlan(out.resolve("plan.json"));
        int jars = copyJars(out.resolve("lib"), jarsFrom);
        // every tier of the catalog as a structural copy (weights zeroed, gzipped): the same
        // graph to time, in a few MiB instead of 280 MB
        for (EncoderModel m : EncoderModel.values()) {
            byte[] weights;
            try (InputStream in = m.openWeights()) {
                weights = in.readAllBytes();
            }
            try (var gz =
                    new java.util.zip.GZIPOutputStream(
                            Files.newOutputStream(
                                    out.resolve("model").resolve(m.id() + ".onnx.gz")))) {
                gz.write(io.zerolayer.gpu.devicecheck.StructuralCopy.zeroWeights(weights));
            }
        }
        jlink(out.resolve("runtime.tar.gz"));
        long bytes = size(out);
        System.out.printf(
                Locale.ROOT,
                "Bundle %s: %d jars, jlink runtime (tar.gz), %d tiers (weights zeroed), plan.json —"
                        + " %.1f MiB%n",
                out,
                jars,
                EncoderModel.values().size(),
                bytes / 1048576.0);
        if (bytes > MAX_BUNDLE_BYTES) {
            System.err.printf(
                    Locale.ROOT,
                    "The bundle is %.1f MiB, over the %d MiB a device check may carry%n",
                    bytes / 1048576.0,
                    MAX_BUNDLE_BYTES >> 20);
            return 1;
        }
        System.out.println(
                "Run it on the GPU host: gpu-udf/device-check/run.sh (results under $OUT or"
                        + " gpu-udf/device-check/out)");
        return 0;
    }

    /** For every GPU profile: the batch sizes and sequence lengths the samples' plans choose. */
    void writePlan(Path file) throws IOException {
        TaskContracts contracts = TaskContracts.builtIn();
        StructureClassifier classifier = new StructureClassifier(contracts);
        List<ClassifiedPrompt> prompts = new ArrayList<>();
        for (Path f : PromptFiles.expand(List.of(samples))) {
            ClassifiedPrompt p = classifier.classify(Files.readString(f));
            if (p.compiles()) {
                prompts.add(p);
            }
        }
        ObjectMapper json = new ObjectMapper();
        ObjectNode root = json.createObjectNode();
        root.put("samples", prompts.size());
        // the tiers to time: each as shipped, and each fp32 one also in fp16 (converted on the
        // host), since a CUDA plan may choose any tier that is not dynamically quantised
        ArrayNode tiers = root.putArray("tiers");
        for (EncoderModel m : EncoderModel.values()) {
            ObjectNode t = tiers.addObject();
            t.put("id", m.id());
            t.put("file", "model/" + m.id() + ".onnx.gz");
            t.put("precision", m.precision());
            t.put("layers", m.layers());
            t.put("hidden-size", m.hiddenSize());
            t.put("ffn-size", m.ffnSize());
            t.put("cuda-plannable", !m.precision().equals("int8"));
            t.put("also-fp16", m.precision().equals("fp32"));
        }
        ObjectNode byProfile = root.putObject("profiles");
        for (HardwareProfile profile : HardwareProfiles.builtIn().all()) {
            if (!profile.kind().equals("gpu")) {
                continue;
            }
            GraphCompiler compiler =
                    new GraphCompiler(
                            GraphIdentity.current(contracts.version(), profile),
                            new CostEstimator(profile, null, 0, true));
            TreeSet<Integer> batches = new TreeSet<>();
            TreeSet<Integer> seqLens = new TreeSet<>();
            for (ClassifiedPrompt p : prompts) {
                ExecutionPlan plan = compiler.compile(p);
                batches.add(plan.batchSize());
                seqLens.add(Integer.parseInt(plan.node("encode").params().get("estimate.seq-len")));
            }
            ObjectNode entry = byProfile.putObject(profile.id());
            ArrayNode b = entry.putArray("batch-sizes");
            batches.forEach(b::add);
            ArrayNode s = entry.putArray("seq-lens");
            seqLens.forEach(s::add);
        }
        Files.writeString(file, json.writerWithDefaultPrettyPrinter().writeValueAsString(root));
    }

    private static int copyJars(Path lib, Path from) throws IOException {
        int copied = 0;
        List<Path> candidates = new ArrayList<>();
        if (from != null) {
            try (Stream<Path> files = Files.list(from)) {
                files.forEach(candidates::add);
            }
        } else {
            for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
                candidates.add(Path.of(entry));
            }
        }
        for (Path jar : candidates) {
            String name = jar.getFileName().toString();
            if (name.endsWith(".jar") && JARS.stream().anyMatch(name::startsWith)) {
                if (name.startsWith("cuda-") && name.endsWith("-linux-x86_64.jar")) {
                    slimNatives(jar, lib.resolve(name));
                } else {
                    Files.copy(jar, lib.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                }
                copied++;
            }
        }
        if (copied < JARS.size()) {
            throw new IllegalStateException(
                    "Found "
                            + copied
                            + " of the jars the bundle needs on the classpath ("
                            + JARS
                            + "); run it through ./zerolayer or give --jars");
        }
        return copied;
    }

    /** JNI libraries of the CUDA presets the device check calls; the other 40 MB stay home. */
    private static final List<String> NATIVES = List.of("libjnicudart.so", "libjnicublas.so");

    /** The CUDA natives jar without the JNI libraries of presets the device check never loads. */
    private static void slimNatives(Path jar, Path target) throws IOException {
        try (var in = new java.util.zip.ZipInputStream(Files.newInputStream(jar));
                var out = new java.util.zip.ZipOutputStream(Files.newOutputStream(target))) {
            for (var e = in.getNextEntry(); e != null; e = in.getNextEntry()) {
                String file = e.getName().substring(e.getName().lastIndexOf('/') + 1);
                if (file.startsWith("libjni") && !NATIVES.contains(file)) {
                    continue;
                }
                out.putNextEntry(new java.util.zip.ZipEntry(e.getName()));
                in.transferTo(out);
                out.closeEntry();
            }
        }
    }

    /**
     * A runtime with just the modules the device-side Java half uses, its native libraries stripped
     * of symbols where {@code strip} exists, packed as {@code runtime.tar.gz} (run.sh unpacks it):
     * about 12 MB instead of 34.
     */
    private static void jlink(Path archive) throws IOException, InterruptedException {
        Path work = Files.createTempDirectory("zerolayer-jlink-");
        Path runtime = work.resolve("runtime");
        Path javaHome = Path.of(System.getProperty("java.home"));
        Path jlink = javaHome.resolve("bin").resolve("jlink");
        if (!Files.isExecutable(jlink) || !Files.isDirectory(javaHome.resolve("jmods"))) {
            throw new IllegalStateException(
                    "jlink and the JDK's jmods are needed to build the bundle; "
                            + javaHome
                            + " has "
                            + (Files.isExecutable(jlink) ? "no jmods" : "no jlink"));
        }
        Process p =
                new ProcessBuilder(
                                jlink.toString(),
                                "--add-modules",
                                "java.base,jdk.unsupported",
                                "--strip-debug",
                                "--no-header-files",
                                "--no-man-pages",
                                "--compress=2",
                                "--output",
                                runtime.toString())
                        .inheritIO()
                        .start();
        if (p.waitFor() != 0) {
            throw new IllegalStateException("jlink failed with exit code " + p.exitValue());
        }
        try (Stream<Path> files = Files.walk(runtime)) {
            for (Path so : files.filter(f -> f.toString().endsWith(".so")).toList()) {
                try {
                    new ProcessBuilder("strip", "--strip-unneeded", so.toString())
                            .inheritIO()
                            .start()
                            .waitFor();
                } catch (IOException noStrip) {
                    break; // no binutils: the runtime stays a few MB larger
                }
            }
        }
        Process tar =
                new ProcessBuilder(
                                "tar",
                                "czf",
                                archive.toAbsolutePath().toString(),
                                "-C",
                                work.toString(),
                                "runtime")
                        .inheritIO()
                        .start();
        if (tar.waitFor() != 0) {
            throw new IllegalStateException("tar failed with exit code " + tar.exitValue());
        }
        deleteRecursively(work);
    }

    private static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(
                            f -> {
                                try {
                                    return Files.size(f);
                                } catch (IOException e) {
                                    throw new java.io.UncheckedIOException(e);
                                }
                            })
                    .sum();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}

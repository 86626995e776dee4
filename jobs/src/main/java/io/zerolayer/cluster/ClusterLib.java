package io.zerolayer.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * The class path of a cluster's JobManager and TaskManagers as docs/cluster.md builds it: Flink's
 * own jars, and {@code zerolayer-flink-lib.jar} in place of the native-code libraries it holds.
 * Which jars it replaces is read from the lib jar itself, so the list cannot drift from flink-lib's
 * assembly.
 */
public final class ClusterLib {
    /** The file name of the jar docs/cluster.md puts in a cluster's {@code lib/}. */
    public static final String LIB_JAR = "zerolayer-flink-lib.jar";

    private ClusterLib() {}

    /**
     * @param flinkLib {@code flink-lib/target/lib}, beside which the build puts the lib jar
     * @throws IllegalStateException when the lib jar was not built
     */
    static String classpath(Path flinkLib) {
        List<String> jars = new ArrayList<>();
        flinkJars(flinkLib).forEach(jar -> jars.add(jar.toString()));
        jars.add(libJar(flinkLib).toString());
        return String.join(File.pathSeparator, jars);
    }

    /**
     * The lib jar {@code flink-lib} builds beside {@code flinkLib}.
     *
     * @throws IllegalStateException when it was not built
     */
    public static Path libJar(Path flinkLib) {
        Path libJar = flinkLib.resolveSibling(LIB_JAR);
        if (!Files.isRegularFile(libJar)) {
            throw new IllegalStateException(
                    libJar + " is missing: build it with mvn -B package -DskipTests -pl flink-lib");
        }
        return libJar;
    }

    /**
     * Flink's own jars among those of {@code flinkLib} (sorted): every jar but those whose classes
     * the lib jar holds.
     */
    public static List<Path> flinkJars(Path flinkLib) {
        List<Path> jars = new ArrayList<>();
        try (ZipFile lib = new ZipFile(libJar(flinkLib).toFile());
                Stream<Path> files = Files.list(flinkLib)) {
            Set<String> inLib = lib.stream().map(ZipEntry::getName).collect(Collectors.toSet());
            for (Path jar :
                    files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                            .sorted()
                            .toList()) {
                if (!firstClassIsIn(jar, inLib)) {
                    jars.add(jar);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return jars;
    }

    /** Whether the first class of {@code jar} is one the lib jar holds: the lib jar holds it. */
    private static boolean firstClassIsIn(Path jar, Set<String> inLib) throws IOException {
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            return zip.stream()
                    .map(ZipEntry::getName)
                    .filter(n -> n.endsWith(".class") && !n.contains("module-info"))
                    .findFirst()
                    .map(inLib::contains)
                    .orElse(false);
        }
    }
}

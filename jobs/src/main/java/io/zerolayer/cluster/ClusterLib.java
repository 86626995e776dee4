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
final class ClusterLib {
    private ClusterLib() {}

    /**
     * @param flinkLib {@code flink-lib/target/lib}, beside which the build puts the lib jar
     * @throws IllegalStateException when the lib jar was not built
     */
    static String classpath(Path flinkLib) {
        Path libJar = flinkLib.resolveSibling("zerolayer-flink-lib.jar");
        if (!Files.isRegularFile(libJar)) {
            throw new IllegalStateException(
                    libJar + " is missing: build it with mvn -B package -DskipTests -pl flink-lib");
        }
        List<String> jars = new ArrayList<>();
        try (ZipFile lib = new ZipFile(libJar.toFile());
                Stream<Path> files = Files.list(flinkLib)) {
            Set<String> inLib = lib.stream().map(ZipEntry::getName).collect(Collectors.toSet());
            for (Path jar :
                    files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                            .sorted()
                            .toList()) {
                if (!firstClassIsIn(jar, inLib)) {
                    jars.add(jar.toString());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        jars.add(libJar.toString());
        return String.join(File.pathSeparator, jars);
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

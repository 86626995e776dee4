package io.zerolayer.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The class path of a cluster's JobManager and TaskManagers as docs/cluster.md builds it: Flink's
 * own jars, and {@code zerolayer-flink-lib.jar} in place of the native-code libraries it holds.
 */
final class ClusterLib {
    /** The jars {@code zerolayer-flink-lib.jar} is made of (flink-lib's assembly descriptor). */
    private static final List<String> IN_THE_LIB_JAR =
            List.of("onnxruntime-", "tokenizers-", "api-", "jna-", "gson-");

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
        try (Stream<Path> files = Files.list(flinkLib)) {
            files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                    .filter(
                            f ->
                                    IN_THE_LIB_JAR.stream()
                                            .noneMatch(f.getFileName().toString()::startsWith))
                    .sorted()
                    .forEach(f -> jars.add(f.toString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        jars.add(libJar.toString());
        return String.join(File.pathSeparator, jars);
    }
}

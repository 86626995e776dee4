package io.zerolayer.tests.testutils;

import static org.assertj.core.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What the build makes before the tests module runs: the job jar a Flink cluster runs and the
 * folder of jars a cluster's {@code lib/} holds. A test that needs one fails when it is missing,
 * naming the command that builds it; it never passes without having checked anything.
 */
public final class BuiltArtifacts {
    private static final String BUILD = "mvn -B -DskipTests package -pl jobs,flink-lib -am";

    private BuiltArtifacts() {}

    /** {@code jobs/target/zerolayer-flink.jar}. */
    public static Path jobJar() {
        return require(Path.of("..", "jobs", "target", "zerolayer-flink.jar"));
    }

    /** {@code flink-lib/target/lib}: the jars a cluster loads parent-first. */
    public static Path flinkLib() {
        return require(Path.of("..", "flink-lib", "target", "lib"));
    }

    /** {@code flink-lib/target/zerolayer-flink-lib.jar}: what a cluster of one's own adds. */
    public static Path flinkLibJar() {
        return require(Path.of("..", "flink-lib", "target", "zerolayer-flink-lib.jar"));
    }

    private static Path require(Path built) {
        if (!Files.exists(built)) {
            fail(
                    "%s is missing: build it first, from the repository root: %s",
                    built.toAbsolutePath().normalize(), BUILD);
        }
        return built;
    }
}

package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Prometheus alerting rules shipped beside the dashboard ({@code
 * docker/prometheus/zerolayer-alerts.yml}) are valid, and fire on the series of {@code
 * zerolayer-alerts.test.yml} that should fire them and on no other: both checked by Prometheus's
 * own {@code promtool} (Debian's {@code prometheus} package; {@code .ci/run} installs it).
 */
class AlertRulesTest {
    static final Path RULES = Path.of("..", "docker", "prometheus", "zerolayer-alerts.yml");
    private static final Path TESTS =
            Path.of("..", "docker", "prometheus", "zerolayer-alerts.test.yml");

    @Test
    void promtoolFindsTheRulesValid() throws Exception {
        assertThat(promtool("check", "rules", RULES)).contains("SUCCESS: 7 rules found");
    }

    @Test
    void eachAlertFiresOnTheSeriesThatShouldFireItAndOnNoOther() throws Exception {
        assertThat(promtool("test", "rules", TESTS)).contains("SUCCESS");
    }

    /**
     * Fails unless every ZeroLayer metric the rules query ({@code
     * flink_taskmanager_job_task_operator_…}) is in {@code scrape}, a running job's Prometheus
     * output: a renamed metric would leave its alert silent for ever.
     */
    static void assertEveryMetricQueriedIsIn(String scrape) throws Exception {
        Matcher m =
                Pattern.compile("flink_taskmanager_job_task_operator_[A-Za-z_]+")
                        .matcher(Files.readString(RULES));
        Set<String> queried = new LinkedHashSet<>();
        while (m.find()) {
            queried.add(m.group());
        }
        assertThat(queried).hasSizeGreaterThanOrEqualTo(8);
        for (String metric : queried) {
            assertThat(scrape).as("%s, queried by an alert", metric).contains(metric + "{");
        }
        // the lag alert's operator matcher picks the requests source's backlog
        assertThat(scrape)
                .containsPattern(
                        "flink_taskmanager_job_task_operator_pendingRecords\\{[^}]*"
                                + "operator_name=\"Source[^\"]*requests\"");
    }

    /** Runs {@code promtool command what file} in the file's folder, as its tests name files. */
    private static String promtool(String command, String what, Path file) throws Exception {
        Process p =
                new ProcessBuilder(
                                which("promtool").toString(),
                                command,
                                what,
                                file.getFileName().toString())
                        .directory(file.getParent().toFile())
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    private static Path which(String program) {
        return java.util.stream.Stream.of(System.getenv("PATH").split(java.io.File.pathSeparator))
                .map(dir -> Path.of(dir, program))
                .filter(Files::isExecutable)
                .findFirst()
                .orElseGet(
                        () ->
                                fail(
                                        program
                                                + " is not on the PATH: install Debian's"
                                                + " prometheus package (apt-get install"
                                                + " --no-install-recommends prometheus), as"
                                                + " .ci/run does"));
    }
}

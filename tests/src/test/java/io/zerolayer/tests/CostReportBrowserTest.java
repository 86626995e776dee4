package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.zerolayer.cli.ZeroLayerCli;
import io.zerolayer.schemas.KernelCostRecord;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code zerolayer costs report} rendered in a real browser: headless Chromium (Debian's {@code
 * chromium}, which the README's setup and {@code .ci/run} install) runs the report's script; the
 * test reads the DOM it leaves and keeps a screenshot in {@code tests/target/costs-report.png}.
 */
class CostReportBrowserTest {
    private static final String[] TENANTS = {"acme", "globex", "initech"};
    private static final String[] KERNELS = {"tokenize", "encode", "pool", "decode"};

    @Test
    void theReportDrawsEveryChartFromTheRecords(@TempDir Path dir) throws Exception {
        String chromium = chromium();

        // 3 tenants × 4 kernels × 5 graphs over two minutes, money computed from the indices
        List<KernelCostRecord> records = new ArrayList<>();
        long total = 0;
        Instant start = Instant.parse("2026-12-02T10:00:00Z");
        for (int i = 0; i < 60; i++) {
            long compute = 1_000L * (i + 1);
            long memory = 10L * i;
            total += compute + memory;
            records.add(
                    KernelCostRecord.newBuilder()
                            .setRecordId("r" + i)
                            .setRequestId("q" + i / 4)
                            .setTenantId(TENANTS[i % 3])
                            .setGraphId("graph-" + (i % 5) + "-" + "f".repeat(40))
                            .setNodeId(KERNELS[i % 4])
                            .setKernel(KERNELS[i % 4])
                            .setDevice("cpu")
                            .setHardwareProfile("cpu-avx2")
                            .setStartedAt(start.plusSeconds(2L * i))
                            .setDurationNanos(1_000_000)
                            .setBatchSize(1)
                            .setComputeNanoUsd(compute)
                            .setMemoryNanoUsd(memory)
                            .setPcieNanoUsd(0L)
                            .setDeviceTimeNanoUsd(0)
                            .setPriceSheetVersion("test")
                            .build());
        }
        Path file = dir.resolve("costs.jsonl");
        StringBuilder lines = new StringBuilder();
        records.forEach(r -> lines.append(r).append('\n')); // Avro's JSON rendering
        Files.writeString(file, lines);
        Path html = dir.resolve("report.html");
        int exit =
                ZeroLayerCli.commandLine()
                        .execute(
                                "costs",
                                "report",
                                "--file",
                                file.toString(),
                                "--out",
                                html.toString());
        assertThat(exit).isZero();

        String dom =
                run(
                        chromium,
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--dump-dom",
                        html.toUri().toString());
        assertThat(dom).contains("data-charts-drawn=\"4\"");
        // bars: one per tenant, per kernel and per top graph; one per minute in the timeline
        assertThat(count(dom, "class=\"bar\"")).isEqualTo(TENANTS.length + KERNELS.length + 5);
        assertThat(count(dom, "class=\"bar time\"")).isEqualTo(2);
        // the timeline's y axis is labelled in money: 0, half and the largest minute
        assertThat(count(dom, "class=\"y-tick\"")).isEqualTo(3);
        assertThat(dom).contains(">0 nano-$<").contains("minute (UTC)");
        for (String tenant : TENANTS) {
            assertThat(dom).contains(">" + tenant + "<");
        }
        assertThat(dom)
                .contains(String.format(Locale.ROOT, "$%.6f", total / 1e9)); // the drawn total

        Path screenshot = Path.of("target", "costs-report.png").toAbsolutePath();
        Files.deleteIfExists(screenshot);
        run(
                chromium,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--window-size=1000,1400",
                "--screenshot=" + screenshot,
                html.toUri().toString());
        assertThat(screenshot).exists();
        assertThat(Files.size(screenshot)).isGreaterThan(10_000);
    }

    private static int count(String text, String what) {
        Matcher m = Pattern.compile(Pattern.quote(what)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private static String run(String... command) throws Exception {
        Process p =
                new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return out;
    }

    /** Chromium's path on PATH; the test fails, saying how to install it, without one. */
    private static String chromium() {
        for (String name : new String[] {"chromium", "chromium-browser"}) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(":")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return p.toString();
                }
            }
        }
        return fail(
                "No chromium on PATH: install it as the README's setup says"
                        + " (Debian: apt-get install -y --no-install-recommends chromium)");
    }
}

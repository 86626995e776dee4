package io.zerolayer.gpu.devicecheck;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The device check's CPU-runnable parts: the no-GPU report and the CPU reference product. */
class DeviceCheckMainTest {
    @Test
    void withoutAGpuTheReportSaysNothingOnTheGpuWasMeasured(@TempDir Path dir) throws Exception {
        Path plan = Files.writeString(dir.resolve("plan.json"), "{\"profiles\":{}}");
        ObjectNode report = DeviceCheckMain.run(plan, List::of);
        assertThat(report.get("cuda").asText()).startsWith("unavailable");
        assertThat(report.get("devices")).isEmpty();
        assertThat(report.has("pinned")).isFalse();
    }

    @Test
    void theCpuReferenceOfTheSimilarityStageIsTheGramMatrixOfUnitVectors() {
        int n = 16;
        int h = 384;
        float[] v = DeviceCheckMain.vectors(n, h);
        float[] g = DeviceCheckMain.gramOnCpu(v, n, h);
        for (int i = 0; i < n; i++) {
            assertThat(g[i * n + i]).isCloseTo(1f, org.assertj.core.data.Offset.offset(1e-4f));
            for (int j = 0; j < n; j++) {
                assertThat(g[i * n + j]).isEqualTo(g[j * n + i]);
                assertThat(Math.abs(g[i * n + j])).isLessThanOrEqualTo(1.0001f);
            }
        }
        // random directions in 384 dimensions are nearly orthogonal
        assertThat(Math.abs(g[1])).isLessThan(0.3f);
    }
}

package io.zerolayer.gpu.hardware;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MemoryHeadroomTest {
    @Test
    void theCpuHeadroomIsTheSmallerOfHeapAndSystemMemory(@TempDir Path dir) throws Exception {
        Path meminfo =
                Files.writeString(
                        dir.resolve("meminfo"),
                        "MemTotal:       10000000 kB\n"
                                + "MemFree:  100 kB\n"
                                + "MemAvailable:    1000000 kB\n");
        MemoryHeadroom cpu = MemoryHeadroom.cpu(meminfo);
        // 10% of the machine is available; the test JVM's heap has more headroom than that
        assertThat(cpu.freeRatio()).isCloseTo(0.10, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(cpu.describe()).contains("system memory 10% available");
        long[] bytes = cpu.bytes();
        assertThat(bytes[1]).isEqualTo(Runtime.getRuntime().maxMemory());
        assertThat(bytes[0]).isBetween(0L, bytes[1]);
    }

    @Test
    void unreadableMeminfoLeavesTheHeapToDecide(@TempDir Path dir) {
        MemoryHeadroom cpu = MemoryHeadroom.cpu(dir.resolve("missing"));
        assertThat(cpu.freeRatio()).isBetween(0.0, 1.0);
        assertThat(cpu.describe()).contains("system memory 100% available");
    }

    @Test
    void withoutCudaADeviceHeadroomIsTheCpus() {
        MemoryHeadroom device = MemoryHeadroom.cuda(0);
        assertThat(device.freeRatio()).isBetween(0.0, 1.0);
        assertThat(MemoryHeadroom.fixed(0.05).describe()).isEqualTo("5% free (injected)");
    }
}

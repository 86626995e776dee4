package io.zerolayer.gpu.hardware;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * How much memory a slot has left, as a share of what it can use: what dynamic graph pruning
 * decides by. On a GPU the device's free memory ({@code cudaMemGetInfo}); on a CPU the smaller of
 * the JVM heap's headroom and the machine's available memory (which the ONNX sessions' off-heap
 * arenas draw on).
 */
public interface MemoryHeadroom {
    /** Share of memory still free, 0 to 1. */
    double freeRatio();

    /** The figures behind {@link #freeRatio()}, for logs and responses. */
    String describe();

    /** The CPU's headroom, read from the JVM and {@code /proc/meminfo}. */
    static MemoryHeadroom cpu() {
        return cpu(Path.of("/proc/meminfo"));
    }

    static MemoryHeadroom cpu(Path meminfo) {
        return new MemoryHeadroom() {
            @Override
            public double freeRatio() {
                return Math.min(heapFree(), systemFree(meminfo));
            }

            @Override
            public String describe() {
                return String.format(
                        Locale.ROOT,
                        "heap %.0f%% free, system memory %.0f%% available",
                        100 * heapFree(),
                        100 * systemFree(meminfo));
            }
        };
    }

    /** A fixed ratio: fault injection for tests of pruning. */
    static MemoryHeadroom fixed(double ratio) {
        return new MemoryHeadroom() {
            @Override
            public double freeRatio() {
                return ratio;
            }

            @Override
            public String describe() {
                return String.format(Locale.ROOT, "%.0f%% free (injected)", 100 * ratio);
            }
        };
    }

    /** Free share of the heap the JVM may still grow to. */
    private static double heapFree() {
        Runtime rt = Runtime.getRuntime();
        long used = rt.totalMemory() - rt.freeMemory();
        return Math.max(0, 1.0 - (double) used / rt.maxMemory());
    }

    /** MemAvailable / MemTotal; 1 where /proc/meminfo cannot be read (not Linux). */
    private static double systemFree(Path meminfo) {
        try {
            long total = -1;
            long available = -1;
            for (String line : Files.readAllLines(meminfo)) {
                if (line.startsWith("MemTotal:")) {
                    total = kilobytes(line);
                } else if (line.startsWith("MemAvailable:")) {
                    available = kilobytes(line);
                }
            }
            return total > 0 && available >= 0 ? (double) available / total : 1.0;
        } catch (IOException | RuntimeException e) {
            return 1.0;
        }
    }

    private static long kilobytes(String line) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
    }
}

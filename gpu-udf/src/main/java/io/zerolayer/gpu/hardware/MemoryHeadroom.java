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
            public long[] bytes() {
                Runtime rt = Runtime.getRuntime();
                long used = rt.totalMemory() - rt.freeMemory();
                return new long[] {rt.maxMemory() - used, rt.maxMemory()};
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

    /** Free bytes and total bytes, where known (-1 otherwise). */
    default long[] bytes() {
        return new long[] {-1, -1};
    }

    /**
     * The free share of CUDA device {@code device} ({@code cudaMemGetInfo}), or the CPU's headroom
     * where the CUDA runtime cannot be loaded.
     */
    static MemoryHeadroom cuda(int device) {
        try {
            org.bytedeco.javacpp.Loader.load(org.bytedeco.cuda.global.cudart.class);
        } catch (Throwable e) { // UnsatisfiedLinkError, NoClassDefFoundError
            return cpu();
        }
        return new MemoryHeadroom() {
            @Override
            public double freeRatio() {
                long[] b = bytes();
                return b[1] > 0 ? (double) b[0] / b[1] : 1.0;
            }

            @Override
            public long[] bytes() {
                try (org.bytedeco.javacpp.SizeTPointer free =
                                new org.bytedeco.javacpp.SizeTPointer(1);
                        org.bytedeco.javacpp.SizeTPointer total =
                                new org.bytedeco.javacpp.SizeTPointer(1)) {
                    if (org.bytedeco.cuda.global.cudart.cudaSetDevice(device) != 0
                            || org.bytedeco.cuda.global.cudart.cudaMemGetInfo(free, total) != 0) {
                        return new long[] {-1, -1};
                    }
                    return new long[] {free.get(), total.get()};
                }
            }

            @Override
            public String describe() {
                long[] b = bytes();
                return String.format(
                        Locale.ROOT,
                        "cuda:%d %.1f of %.1f GiB free",
                        device,
                        b[0] / 1073741824.0,
                        b[1] / 1073741824.0);
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

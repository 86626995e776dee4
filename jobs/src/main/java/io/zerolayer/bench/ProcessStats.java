package io.zerolayer.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's CPU time and resident memory, from the JVM and Linux's /proc. */
final class ProcessStats {
    private ProcessStats() {}

    /** CPU time of all this process's threads (broker, Flink, client, ONNX Runtime), ns. */
    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Resident set size now, bytes; -1 where /proc is not there. */
    static long rssBytes() {
        return statusKilobytes("VmRSS:") * 1024;
    }

    /**
     * Peak resident set size since start or the last {@link #resetPeak()}, bytes; -1 if unknown.
     */
    static long peakRssBytes() {
        return statusKilobytes("VmHWM:") * 1024;
    }

    /**
     * Resets the peak to the current resident size (Linux: {@code 5} to /proc/self/clear_refs), so
     * a phase's peak is its own. Where that is refused, peaks run from process start.
     */
    static boolean resetPeak() {
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static long statusKilobytes(String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.substring(field.length()).replace("kB", "").strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }
}

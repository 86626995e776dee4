package io.zerolayer.analyze;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a batch analysis did, printed at its end: rows by status, time, throughput and what it cost,
 * by kernel. {@code skipped} counts inputs a resumed run found already done.
 */
public final class AnalysisSummary {
    int ok;
    int rejected;
    int failed;
    int errors;
    int skipped;
    int ignoredFiles;
    long tokens;
    long nanos;
    int costRecords;
    final Map<String, Long> nanoUsdByKernel = new TreeMap<>();

    public int ok() {
        return ok;
    }

    public int rejected() {
        return rejected;
    }

    public int failed() {
        return failed;
    }

    public int errors() {
        return errors;
    }

    public int skipped() {
        return skipped;
    }

    /** Files in the named folders that are of no type analyze reads, left alone. */
    public int ignoredFiles() {
        return ignoredFiles;
    }

    /** Rows this run wrote. */
    public int documents() {
        return ok + rejected + failed + errors;
    }

    public long tokens() {
        return tokens;
    }

    public double seconds() {
        return nanos / 1e9;
    }

    public double documentsPerSecond() {
        return documents() / Math.max(seconds(), 1e-9);
    }

    public int costRecords() {
        return costRecords;
    }

    public Map<String, Long> nanoUsdByKernel() {
        return Map.copyOf(nanoUsdByKernel);
    }

    public long nanoUsd() {
        return nanoUsdByKernel.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Whether every row this run wrote is an answer. */
    public boolean allOk() {
        return rejected + failed + errors == 0;
    }

    void row(String status) {
        switch (status) {
            case "OK" -> ok++;
            case "REJECTED" -> rejected++;
            case "FAILED" -> failed++;
            default -> errors++;
        }
    }

    /** The summary as lines for a terminal. */
    public String render() {
        StringBuilder sb = new StringBuilder();
        sb.append(
                String.format(
                        "%d documents in %.1f s (%.2f documents/s, %,.0f tokens/s): %d ok, %d"
                                + " rejected, %d failed, %d unreadable%s%n",
                        documents(),
                        seconds(),
                        documentsPerSecond(),
                        tokens / Math.max(seconds(), 1e-9),
                        ok,
                        rejected,
                        failed,
                        errors,
                        (skipped > 0 ? "; " + skipped + " already done (--resume)" : "")
                                + (ignoredFiles > 0
                                        ? "; "
                                                + ignoredFiles
                                                + " files of other types in the folders left alone"
                                        : "")));
        sb.append(
                String.format("cost: $%.6f in %d kernel records%n", nanoUsd() / 1e9, costRecords));
        nanoUsdByKernel.forEach(
                (kernel, n) -> sb.append(String.format("  %-9s $%.6f%n", kernel, n / 1e9)));
        return sb.toString();
    }
}

package io.zerolayer.cli;

import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.Diagnostic;
import java.io.PrintStream;
import java.util.Locale;

/** Prints responses the way {@code demo} and {@code submit} show them. */
final class ResponsePrinter {
    private static final int MAX_RESULT_CHARS = 400;

    private ResponsePrinter() {}

    static void print(PrintStream out, String label, AnalysisResponse r, long roundTripMillis) {
        java.io.PrintWriter writer = new java.io.PrintWriter(out);
        print(writer, label, r, roundTripMillis);
        writer.flush();
    }

    static void print(
            java.io.PrintWriter out, String label, AnalysisResponse r, long roundTripMillis) {
        String graph = r.getGraphId() == null ? "-" : r.getGraphId().substring(0, 12);
        out.printf(
                Locale.ROOT,
                "%-8s %-28s graph=%s fidelity=%s task=%s rtt=%dms compile=%.1fms exec=%.1fms"
                        + " cost=%s%n",
                "[" + r.getStatus() + "]",
                label,
                graph,
                r.getFidelity() == null ? "-" : r.getFidelity(),
                r.getTask() == null ? "-" : r.getTask() + "/" + r.getOutputFormat(),
                roundTripMillis,
                r.getTimings().getCompileMicros() / 1000.0,
                r.getTimings().getExecuteMicros() / 1000.0,
                cost(r));
        if (r.getOutput() != null) {
            String result = r.getOutput().replaceAll("\\s+", " ");
            out.println(
                    "         result: "
                            + (result.length() > MAX_RESULT_CHARS
                                    ? result.substring(0, MAX_RESULT_CHARS) + " …"
                                    : result));
        }
        for (Diagnostic d : r.getDiagnostics()) {
            out.printf(
                    Locale.ROOT,
                    "         %d:%d: %s[%s]: %s%s%n",
                    d.getLine(),
                    d.getColumn(),
                    d.getSeverity(),
                    d.getCode(),
                    d.getMessage(),
                    d.getHint() == null ? "" : " — " + d.getHint());
        }
    }

    static String cost(AnalysisResponse r) {
        var c = r.getCost();
        if (c.getKernels() == 0) {
            return "none";
        }
        return String.format(
                Locale.ROOT,
                "%d kernels/%.1fms%s%s",
                c.getKernels(),
                c.getKernelNanos() / 1e6,
                c.getFlops() == null
                        ? ""
                        : String.format(Locale.ROOT, "/%.2f GFLOP", c.getFlops() / 1e9),
                c.getNanoUsd() == null ? "" : "/" + c.getNanoUsd() + " nUSD");
    }
}

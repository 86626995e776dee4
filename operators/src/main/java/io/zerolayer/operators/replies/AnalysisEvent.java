package io.zerolayer.operators.replies;

import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.KernelCostRecord;

/**
 * What a batch analysis emits, one stream for the client to write: a part's response, a kernel cost
 * record, or an input that never became a request ({@link #error}, naming its file).
 */
public class AnalysisEvent {
    public AnalysisResponse response;
    public KernelCostRecord cost;

    /** For an error: the file (display path), its line for JSON lines (else 0), its SHA-256. */
    public String path;

    public int line;
    public String sha256;
    public String format;
    public String error;

    public AnalysisEvent() {}

    public static AnalysisEvent of(AnalysisResponse response) {
        AnalysisEvent e = new AnalysisEvent();
        e.response = response;
        return e;
    }

    public static AnalysisEvent of(KernelCostRecord cost) {
        AnalysisEvent e = new AnalysisEvent();
        e.cost = cost;
        return e;
    }

    public static AnalysisEvent error(
            String path, int line, String sha256, String format, String error) {
        AnalysisEvent e = new AnalysisEvent();
        e.path = path;
        e.line = line;
        e.sha256 = sha256;
        e.format = format;
        e.error = error;
        return e;
    }
}

package io.zerolayer.operators.replies;

import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.schemas.AnalysisRequest;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.CostTotal;
import io.zerolayer.schemas.Diagnostic;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.Timings;
import java.time.Instant;
import java.util.List;

/** Builds the responses that do not come from a graph run: rejections and failures. */
public final class Responses {
    private Responses() {}

    static AnalysisResponse.Builder base(AnalysisRequest request, long classifyMicros) {
        return AnalysisResponse.newBuilder()
                .setRequestId(request.getRequestId())
                .setTenantId(request.getTenantId())
                .setAttributes(request.getAttributes())
                .setDiagnostics(List.of())
                .setTimings(
                        new Timings(
                                request.getSubmittedAt(), Instant.now(), classifyMicros, 0L, 0L))
                .setCost(new CostTotal(0, 0L, null, null));
    }

    public static AnalysisResponse rejected(
            AnalysisRequest request, List<PromptDiagnostic> diagnostics, long classifyMicros) {
        return base(request, classifyMicros)
                .setStatus(ResponseStatus.REJECTED)
                .setDiagnostics(diagnostics.stream().map(PromptDiagnostic::toAvro).toList())
                .build();
    }

    public static AnalysisResponse failed(
            AnalysisRequest request,
            String graphId,
            String code,
            String message,
            long classifyMicros) {
        return base(request, classifyMicros)
                .setGraphId(graphId)
                .setStatus(ResponseStatus.FAILED)
                .setDiagnostics(List.of(new Diagnostic(code, "error", 0, 0, message, null)))
                .build();
    }
}

package io.zerolayer.operators.flink;

import io.zerolayer.schemas.AnalysisRequest;

/** A decoded, classified request on its way to the executor that owns its graph id. */
public class RoutedRequest {
    public AnalysisRequest request;
    public String graphId;
    public ReplyRoute route;
    public long classifyMicros;

    /** Wall clock when the record was decoded, for end-to-end latency. */
    public long receivedAtMillis;

    public RoutedRequest() {}
}

package io.zerolayer.operators.flink;

import io.zerolayer.schemas.AnalysisResponse;

/** A response with the route back to its requester. */
public class Reply {
    public AnalysisResponse response;
    public ReplyRoute route;

    public Reply() {}

    public Reply(AnalysisResponse response, ReplyRoute route) {
        this.response = response;
        this.route = route;
    }
}

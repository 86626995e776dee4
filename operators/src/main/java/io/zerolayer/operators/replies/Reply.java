package io.zerolayer.operators.replies;

import io.zerolayer.operators.kafka.ReplyRoute;
import io.zerolayer.schemas.AnalysisResponse;

/**
 * A response with the route back to its requester. The reply of a part of a split request carries
 * {@link #part}: it goes to the join of split requests, never to the requester, and its output is
 * the part's JSON result whatever the request's output format.
 */
public class Reply {
    public AnalysisResponse response;
    public ReplyRoute route;

    /** Which part of a split request this answers; null for a whole request's reply. */
    public Part part;

    public Reply() {}

    public Reply(AnalysisResponse response, ReplyRoute route) {
        this.response = response;
        this.route = route;
    }

    /**
     * Part {@code index} of {@code count}, and what combining the parts' results needs: the
     * request's decoder and, for a summary, its {@code sentences} attribute (0: the default).
     */
    public static class Part {
        public int index;
        public int count;
        public String decoder;
        public int sentences;

        public Part() {}

        public Part(int index, int count, String decoder, int sentences) {
            this.index = index;
            this.count = count;
            this.decoder = decoder;
            this.sentences = sentences;
        }
    }
}

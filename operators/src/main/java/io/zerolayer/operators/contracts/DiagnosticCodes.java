package io.zerolayer.operators.contracts;

import java.util.Set;

/**
 * The stable diagnostic codes. Codes in {@link #ABNORMAL} describe abnormal structure, which a
 * tenant's {@code degrade} policy serves with the SAFE graph; all others are contract failures and
 * always rejected. docs/prompts.md lists every code with an example.
 */
public final class DiagnosticCodes {
    public static final String NO_TASK = "ZL001";
    public static final String STRAY_CLOSE_TAG = "ZL002";
    public static final String SECOND_TASK = "ZL003";
    public static final String UNCLOSED_TAG = "ZL004";
    public static final String UNKNOWN_TASK = "ZL010";
    public static final String MISSING_REQUIRED_TAG = "ZL011";

    /** The prompt has no document text for its task to work on, only tags and query inputs. */
    public static final String NO_TEXT = "ZL012";

    public static final String OUTPUT_FORMAT_NOT_ALLOWED = "ZL013";
    public static final String UNKNOWN_TAG = "ZL020";
    public static final String TAG_NOT_FOR_TASK = "ZL021";
    public static final String MISSING_ATTRIBUTE = "ZL022";
    public static final String ENUM_VALUE_NOT_ALLOWED = "ZL023";
    public static final String BAD_INTEGER = "ZL024";
    public static final String UNKNOWN_ATTRIBUTE = "ZL025";
    public static final String ILLEGAL_NESTING = "ZL026";
    public static final String TEXT_TOO_LONG = "ZL027";
    public static final String BAD_TAG_VALUE = "ZL028";
    public static final String PROMPT_TOO_LARGE = "ZL030";
    public static final String ATTRIBUTE_TOO_LONG = "ZL031";
    public static final String TOO_DEEP = "ZL040";
    public static final String TOO_MANY_TAGS = "ZL041";

    /** Answered FAILED: the deadline passed before the request ran. */
    public static final String DEADLINE_PASSED = "ZL090";

    /** Answered FAILED: the graph failed while executing (on its fallback too). */
    public static final String EXECUTION_FAILED = "ZL091";

    /**
     * Answered OK with fidelity REDUCED: the main path failed or overran, the fallback answered.
     */
    public static final String FALLBACK_USED = "ZL092";

    /** Answered OK with fidelity REDUCED: optional nodes were skipped under memory pressure. */
    public static final String NODES_PRUNED = "ZL093";

    /**
     * Answered OK, label {@code unknown}: no label of the task's head reached its {@code
     * min-probability}; the message names the likeliest label and its probability.
     */
    public static final String BELOW_MIN_PROBABILITY = "ZL094";

    /**
     * Answered REJECTED: the tenant is over a quota (in flight in a slot, or encoder tokens a
     * second); the hint says {@code retry-after-ms=N}.
     */
    public static final String OVER_QUOTA = "ZL095";

    public static final Set<String> ABNORMAL =
            Set.of(
                    STRAY_CLOSE_TAG,
                    UNCLOSED_TAG,
                    UNKNOWN_TAG,
                    TAG_NOT_FOR_TASK,
                    ILLEGAL_NESTING,
                    TOO_DEEP,
                    TOO_MANY_TAGS);

    private DiagnosticCodes() {}
}

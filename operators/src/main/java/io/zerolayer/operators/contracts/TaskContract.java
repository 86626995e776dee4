package io.zerolayer.operators.contracts;

import java.util.List;
import java.util.Map;

/**
 * The contract of one task.
 *
 * @param decoder the built-in decoder that computes the result (summarize, classify, answer, embed,
 *     extract)
 * @param requires tags that must be present
 * @param allows document tags the task may use besides task/output_format and its required tags;
 *     null for every known tag
 * @param attributes attributes of the {@code <task:…>} tag
 * @param maxChars most characters of text the task accepts
 */
public record TaskContract(
        String name,
        String decoder,
        List<String> requires,
        List<String> allows,
        List<String> outputFormats,
        Map<String, AttributeSpec> attributes,
        int maxChars) {

    public boolean allowsTag(String tag) {
        return allows == null
                || allows.contains(tag)
                || requires.contains(tag)
                || tag.equals("task")
                || tag.equals("output_format");
    }
}

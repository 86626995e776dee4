package io.zerolayer.operators.contracts;

import java.util.List;
import java.util.Map;

/**
 * What a tag may look like.
 *
 * @param value type of the part after the colon, or null when the tag takes none
 * @param children tags allowed directly inside it, or null for any known tag
 * @param mustClose whether leaving it unclosed is an error
 */
public record TagSpec(
        String name,
        AttributeSpec value,
        Map<String, AttributeSpec> attributes,
        List<String> children,
        boolean mustClose) {}

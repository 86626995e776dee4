package io.zerolayer.operators.contracts;

import java.util.List;

/**
 * The type of an attribute or of a tag's colon value.
 *
 * @param type {@code string}, {@code int} or {@code enum}
 * @param values the allowed values of an enum
 * @param min smallest allowed int, or null
 * @param max largest allowed int, or null
 */
public record AttributeSpec(
        String type, List<String> values, boolean required, Integer min, Integer max) {
    public static final AttributeSpec ANY_STRING =
            new AttributeSpec("string", List.of(), false, null, null);

    public boolean isEnum() {
        return type.equals("enum");
    }
}

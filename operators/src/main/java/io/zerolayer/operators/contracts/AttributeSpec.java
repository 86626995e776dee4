package io.zerolayer.operators.contracts;

import static io.zerolayer.operators.contracts.DiagnosticCodes.BAD_INTEGER;
import static io.zerolayer.operators.contracts.DiagnosticCodes.BAD_TAG_VALUE;
import static io.zerolayer.operators.contracts.DiagnosticCodes.ENUM_VALUE_NOT_ALLOWED;

import io.zerolayer.operators.prompt.PromptDiagnostic;
import io.zerolayer.operators.prompt.TagNode;
import java.util.List;
import java.util.Locale;

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

    /**
     * Checks a tag's {@code value} (null: absent) of this type, adding what is wrong to {@code
     * out}; {@code what} names it in the message ({@code attribute format of <document>}).
     */
    public void check(TagNode tag, String what, String value, List<PromptDiagnostic> out) {
        AttributeSpec spec = this;
        if (value == null) {
            if (spec.required()) {
                out.add(
                        PromptDiagnostic.error(
                                BAD_TAG_VALUE,
                                tag.line(),
                                tag.column(),
                                what + " needs a value",
                                spec.isEnum() ? "one of " + spec.values() : null));
            }
            return;
        }
        switch (spec.type()) {
            case "enum" -> {
                if (!spec.values().contains(value.toLowerCase(Locale.ROOT))) {
                    out.add(
                            PromptDiagnostic.error(
                                    ENUM_VALUE_NOT_ALLOWED,
                                    tag.line(),
                                    tag.column(),
                                    what + " is '" + value + "'; allowed: " + spec.values(),
                                    NearestName.of(value, spec.values())
                                            .map(s -> "did you mean '" + s + "'?")
                                            .orElse("use one of " + spec.values())));
                }
            }
            case "int" -> {
                try {
                    long n = Long.parseLong(value.strip());
                    if ((spec.min() != null && n < spec.min())
                            || (spec.max() != null && n > spec.max())) {
                        out.add(
                                PromptDiagnostic.error(
                                        BAD_INTEGER,
                                        tag.line(),
                                        tag.column(),
                                        what
                                                + " is "
                                                + n
                                                + "; allowed range "
                                                + (spec.min() == null ? "…" : spec.min())
                                                + ".."
                                                + (spec.max() == null ? "…" : spec.max()),
                                        null));
                    }
                } catch (NumberFormatException e) {
                    out.add(
                            PromptDiagnostic.error(
                                    BAD_INTEGER,
                                    tag.line(),
                                    tag.column(),
                                    what + " must be an integer, got '" + value + "'",
                                    null));
                }
            }
            default -> {}
        }
    }
}

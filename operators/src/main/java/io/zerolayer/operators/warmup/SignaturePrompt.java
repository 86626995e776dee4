package io.zerolayer.operators.warmup;

import io.zerolayer.operators.structure.StructureSignature;

/**
 * Writes a prompt that has a given structure signature: the structure, with filler text of the
 * right size bucket where the original had text. A graph descriptor holds only the signature (the
 * prompt's text is never stored), so this is how a restarted executor recompiles the graphs of the
 * graphs topic: it compiles the synthetic prompt and keeps the graph only if its id is the
 * descriptor's.
 *
 * <p>Childless tags are written self-closed, free attribute values ({@code *}) and numeric tag
 * values ({@code #}) as {@code 1}. A signature whose original cannot be told apart from such a
 * rewrite (an empty closed tag vs. a directive) may not reproduce its graph id; callers check.
 */
public final class SignaturePrompt {
    private static final String FILLER = "Filler words for warm start. ";

    private final String signature;
    private int pos;
    private final StringBuilder out = new StringBuilder();

    private SignaturePrompt(String signature) {
        this.signature = signature;
    }

    public static String of(String canonicalSignature) {
        SignaturePrompt p = new SignaturePrompt(canonicalSignature);
        p.items(false);
        if (p.pos != canonicalSignature.length()) {
            throw new IllegalArgumentException(
                    "Not a structure signature (stopped at " + p.pos + "): " + canonicalSignature);
        }
        return p.out.toString();
    }

    /** Items separated by spaces, until the end or a closing parenthesis. */
    private void items(boolean nested) {
        while (pos < signature.length()) {
            char c = signature.charAt(pos);
            if (c == ')') {
                if (!nested) {
                    throw new IllegalArgumentException(
                            "Unbalanced ')' at " + pos + " in " + signature);
                }
                return;
            }
            if (c == ' ') {
                pos++;
                continue;
            }
            if (c == '~') {
                pos++;
                int start = pos;
                while (pos < signature.length() && Character.isDigit(signature.charAt(pos))) {
                    pos++;
                }
                text(Integer.parseInt(signature.substring(start, pos)));
            } else {
                tag();
            }
        }
    }

    private void tag() {
        int start = pos;
        while (pos < signature.length() && "{( )".indexOf(signature.charAt(pos)) < 0) {
            pos++;
        }
        String head = signature.substring(start, pos);
        int colon = head.indexOf(':');
        String name = colon < 0 ? head : head.substring(0, colon);
        String value = colon < 0 ? null : head.substring(colon + 1);
        out.append('<').append(name);
        if (value != null) {
            out.append(':').append(value.equals("#") ? "1" : value);
        }
        if (pos < signature.length() && signature.charAt(pos) == '{') {
            int end = signature.indexOf('}', pos);
            for (String attr : signature.substring(pos + 1, end).split(",")) {
                int eq = attr.indexOf('=');
                String v = attr.substring(eq + 1);
                out.append(' ')
                        .append(attr, 0, eq)
                        .append("=\"")
                        .append(v.equals("*") ? "1" : v)
                        .append('"');
            }
            pos = end + 1;
        }
        if (pos < signature.length() && signature.charAt(pos) == '(') {
            pos++;
            out.append('>');
            items(true);
            pos++; // ')'
            out.append("</").append(name).append('>');
        } else {
            out.append("/>");
        }
    }

    /** Filler text whose stripped length lands in {@code bucket}. */
    private void text(int bucket) {
        int length = bucket == 0 ? 64 : 128 * (1 << (bucket - 1)) + 16;
        StringBuilder t = new StringBuilder(length);
        while (t.length() < length) {
            t.append(FILLER);
        }
        String text = t.substring(0, length).strip();
        if (StructureSignature.sizeBucket(text.length()) != bucket) {
            throw new IllegalStateException(
                    "Filler of " + text.length() + " chars is not in bucket " + bucket);
        }
        out.append(text);
    }
}

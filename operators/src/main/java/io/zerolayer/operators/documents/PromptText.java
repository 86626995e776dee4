package io.zerolayer.operators.documents;

import java.util.regex.Pattern;

/** Document text made safe to put in a prompt: nothing in it may read as a tag. */
final class PromptText {
    /** Where a tag could start: '<' before a name character or '/'. */
    private static final Pattern TAG_START = Pattern.compile("<(?=[a-zA-Z_/])");

    /** The figure and table markers readers insert themselves. */
    private static final Pattern MARKER = Pattern.compile("<(figure|table):\\d{1,4}>");

    private static final Pattern TASK_TAG = Pattern.compile("<task:[a-zA-Z_]");

    private PromptText() {}

    /**
     * Puts a space after every '<' that could start a tag ("a<b" → "a< b"): the prompt language
     * reads a '<' that starts no well-formed tag as text, so the text stays as it was, less a tag.
     */
    static String escape(String text) {
        return TAG_START.matcher(text).replaceAll("< ");
    }

    /** {@link #escape}, keeping the {@code <figure:n>} and {@code <table:n>} markers. */
    static String escapeKeepingMarkers(String text) {
        var m = MARKER.matcher(text);
        StringBuilder out = new StringBuilder(text.length() + 16);
        int last = 0;
        while (m.find()) {
            out.append(escape(text.substring(last, m.start()))).append(m.group());
            last = m.end();
        }
        return out.append(escape(text.substring(last))).toString();
    }

    /** An attribute value: no quotes, angle brackets or line breaks, at most 200 characters. */
    static String attribute(String value) {
        String s = value.replaceAll("[\"<>\\s]+", " ").strip();
        return s.length() > 200 ? s.substring(0, 200).strip() : s;
    }

    static boolean hasTaskTag(String prompt) {
        return TASK_TAG.matcher(prompt).find();
    }
}

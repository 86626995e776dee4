package io.zerolayer.operators.tasks;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Compliance node: masks personal data in the output — e-mail addresses, IBANs, payment card
 * numbers and phone numbers — with {@code [EMAIL]}, {@code [IBAN]}, {@code [CARD]} and {@code
 * [PHONE]}. The masks are plain letters in brackets, so JSON output stays valid. Annotates the
 * response with how many of each it masked.
 */
final class Redaction implements PostDecodeNode {
    private record Rule(String name, Pattern pattern) {}

    /** Applied in this order: an IBAN or card number is not also taken for a phone number. */
    private static final List<Rule> RULES =
            List.of(
                    new Rule("EMAIL", Pattern.compile("[\\w.+-]+@[\\w-]+(\\.[\\w-]+)+")),
                    new Rule(
                            "IBAN",
                            Pattern.compile(
                                    "\\b[A-Z]{2}\\d{2}(?: ?[A-Z0-9]{4}){2,7}(?:"
                                            + " ?[A-Z0-9]{1,3})?\\b")),
                    new Rule("CARD", Pattern.compile("\\b(?:\\d[ -]?){12,18}\\d\\b")),
                    new Rule(
                            "PHONE",
                            Pattern.compile(
                                    "(?<![\\w+]|\\d\\.)\\+?\\d[\\d ()/-]{5,}\\d(?!\\w|\\.\\d)")));

    @Override
    public Result apply(TaskInput in, String output, String outputFormat, Context context) {
        String text = output;
        Map<String, String> counts = new LinkedHashMap<>();
        for (Rule rule : RULES) {
            Matcher m = rule.pattern().matcher(text);
            int found = 0;
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                if (rule.name().equals("PHONE") && m.group().replaceAll("\\D", "").length() < 7) {
                    continue;
                }
                m.appendReplacement(sb, "[" + rule.name() + "]");
                found++;
            }
            m.appendTail(sb);
            text = sb.toString();
            if (found > 0) {
                counts.put(
                        "redacted." + rule.name().toLowerCase(java.util.Locale.ROOT),
                        String.valueOf(found));
            }
        }
        return new Result(text, counts, 0);
    }
}

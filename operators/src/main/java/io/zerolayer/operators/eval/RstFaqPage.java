package io.zerolayer.operators.eval;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The questions of a reStructuredText FAQ page, as the Python documentation writes them ({@code
 * faq/*.rst.txt}): a heading underlined with {@code -} that ends in a question mark, answered by
 * the text up to the next heading. Comments, directives' option lines and link targets are left
 * out; the rest of the markup is kept, as a user's prompt would carry it.
 */
final class RstFaqPage {
    private static final Pattern UNDERLINE = Pattern.compile("([=\\-~^\"'`#*+])\\1{2,}");

    private RstFaqPage() {}

    static FaqCorpus.Page read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<FaqCorpus.Section> sections = new ArrayList<>();
        String question = null;
        StringBuilder answer = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            boolean heading =
                    i + 1 < lines.size()
                            && !line.isBlank()
                            && UNDERLINE.matcher(lines.get(i + 1).strip()).matches()
                            && lines.get(i + 1).strip().length() >= line.strip().length();
            if (heading) {
                add(sections, question, answer);
                String title = line.strip();
                question =
                        lines.get(i + 1).strip().charAt(0) == '-' && title.endsWith("?")
                                ? title
                                : null;
                answer.setLength(0);
                i++; // the underline
                continue;
            }
            String s = line.strip();
            if (s.startsWith(".. ") || s.startsWith(":") && s.endsWith(":")) {
                continue; // comments, directives, field lists such as :tocdepth:
            }
            answer.append(line).append('\n');
        }
        add(sections, question, answer);
        return new FaqCorpus.Page(file.getFileName().toString(), sections);
    }

    private static void add(List<FaqCorpus.Section> out, String question, StringBuilder answer) {
        String text = answer.toString().strip().replaceAll("\\n{3,}", "\n\n");
        if (question != null && !text.isEmpty()) {
            out.add(new FaqCorpus.Section(question, text));
        }
    }
}

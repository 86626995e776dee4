package io.zerolayer.operators.eval;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows of a Weka ARFF file whose attributes are a quoted string and a nominal class, as Weka's
 * {@code examples/Reuters*-{train,test}.arff} are: {@code 'text with \n and \'',1}.
 */
final class ArffFile {
    private ArffFile() {}

    /** One data row: its text and its class value. */
    record Row(String text, String value) {}

    static List<Row> read(Path file) throws IOException {
        List<Row> out = new ArrayList<>();
        boolean data = false;
        int line = 0;
        for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            line++;
            String s = raw.strip();
            if (!data) {
                data = s.equalsIgnoreCase("@data");
                continue;
            }
            if (s.isEmpty() || s.startsWith("%")) {
                continue;
            }
            out.add(row(s, file, line));
        }
        if (!data) {
            throw new IOException(file + " has no @data section: not an ARFF file");
        }
        return out;
    }

    private static Row row(String s, Path file, int line) throws IOException {
        if (!s.startsWith("'")) {
            throw new IOException(file + ":" + line + ": the first value is not a quoted string");
        }
        StringBuilder text = new StringBuilder();
        int i = 1;
        for (; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char next = s.charAt(++i);
                text.append(
                        switch (next) {
                            case 'n' -> '\n';
                            case 't' -> '\t';
                            case 'r' -> '\r';
                            default -> next;
                        });
            } else if (c == '\'') {
                break;
            } else {
                text.append(c);
            }
        }
        int comma = s.indexOf(',', i);
        if (i >= s.length() || comma < 0) {
            throw new IOException(file + ":" + line + ": unterminated string or no class value");
        }
        return new Row(text.toString(), s.substring(comma + 1).strip());
    }
}

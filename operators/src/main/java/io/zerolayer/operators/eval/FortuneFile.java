package io.zerolayer.operators.eval;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The entries of a {@code fortune} data file: texts separated by lines holding only {@code %}. */
final class FortuneFile {
    private FortuneFile() {}

    static List<String> read(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        StringBuilder entry = new StringBuilder();
        // the files are Latin-1 in places; read bytes leniently
        String text = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
        for (String line : text.split("\n", -1)) {
            if (line.equals("%")) {
                add(out, entry);
            } else {
                entry.append(line).append('\n');
            }
        }
        add(out, entry);
        return out;
    }

    private static void add(List<String> out, StringBuilder entry) {
        String s = entry.toString().strip();
        if (!s.isEmpty()) {
            out.add(s);
        }
        entry.setLength(0);
    }
}

package io.zerolayer.cli;

import io.zerolayer.schemas.AnalysisRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Turns prompt files (or folders of {@code *.prompt} files) into requests. */
final class PromptFiles {
    private PromptFiles() {}

    static List<Path> expand(List<Path> paths) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.list(p)) {
                    s.filter(f -> f.getFileName().toString().endsWith(".prompt"))
                            .sorted()
                            .forEach(files::add);
                }
            } else if (Files.isRegularFile(p)) {
                files.add(p);
            } else {
                throw new IllegalArgumentException("No such prompt file or folder: " + p);
            }
        }
        if (files.isEmpty()) {
            throw new IllegalArgumentException("No *.prompt files in " + paths);
        }
        return files;
    }

    static String label(Path file) {
        String name = file.getFileName().toString();
        return name.endsWith(".prompt")
                ? name.substring(0, name.length() - ".prompt".length())
                : name;
    }

    static AnalysisRequest request(Path file, String requestId, String tenant) throws IOException {
        return request(
                requestId,
                tenant,
                Files.readString(file, StandardCharsets.UTF_8),
                Map.of("source", file.getFileName().toString()));
    }

    static AnalysisRequest request(
            String requestId, String tenant, String prompt, Map<String, String> attributes) {
        return AnalysisRequest.newBuilder()
                .setRequestId(requestId)
                .setTenantId(tenant)
                .setPrompt(prompt)
                .setSubmittedAt(Instant.now())
                .setAttributes(attributes)
                .build();
    }
}

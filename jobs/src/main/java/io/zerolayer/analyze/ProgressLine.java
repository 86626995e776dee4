package io.zerolayer.analyze;

import java.io.PrintStream;
import java.time.Duration;

/**
 * One self-rewriting progress line on a terminal: documents done of the total, documents and tokens
 * per second, elapsed time and an ETA. Redrawn at most five times a second; silent when the output
 * is not a terminal (a log or a CI run gets only the summary).
 */
public final class ProgressLine {
    private static final long REDRAW_NANOS = 200_000_000L;
    private static final int BAR = 24;

    private final PrintStream out;
    private final boolean enabled;
    private final int total;
    private final long startNanos = System.nanoTime();
    private long drawnAt;
    private int done;
    private long tokens;
    private int width;

    ProgressLine(PrintStream out, boolean enabled, int total) {
        this.out = out;
        this.enabled = enabled;
        this.total = total;
    }

    /** Whether this process writes to a terminal (so a progress line can be redrawn). */
    public static boolean onTerminal() {
        return System.console() != null && System.getenv("CI") == null;
    }

    void tokens(long n) {
        tokens += n;
        maybeDraw();
    }

    void documentDone() {
        done++;
        maybeDraw();
    }

    private void maybeDraw() {
        long now = System.nanoTime();
        if (enabled && (now - drawnAt >= REDRAW_NANOS || done == total)) {
            drawnAt = now;
            String line = render(now - startNanos);
            out.print("\r" + line + " ".repeat(Math.max(0, width - line.length())));
            out.flush();
            width = line.length();
        }
    }

    /** Clears the line, so what is printed next starts on a clean line. */
    void finish() {
        if (enabled && width > 0) {
            out.print("\r" + " ".repeat(width) + "\r");
            out.flush();
        }
    }

    String render(long elapsedNanos) {
        double seconds = Math.max(elapsedNanos / 1e9, 1e-3);
        int filled = total == 0 ? BAR : (int) ((long) BAR * done / total);
        double docsPerSecond = done / seconds;
        String eta =
                done == 0 || done >= total
                        ? "--:--"
                        : clock(Duration.ofMillis((long) ((total - done) / docsPerSecond * 1000)));
        return String.format(
                "[%s%s] %d/%d documents · %.1f docs/s · %,.0f tokens/s · %s elapsed · ETA %s",
                "#".repeat(filled),
                ".".repeat(BAR - filled),
                done,
                total,
                docsPerSecond,
                tokens / seconds,
                clock(Duration.ofNanos(elapsedNanos)),
                eta);
    }

    static String clock(Duration d) {
        long s = d.toSeconds();
        return s >= 3600
                ? String.format("%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
                : String.format("%02d:%02d", s / 60, s % 60);
    }
}

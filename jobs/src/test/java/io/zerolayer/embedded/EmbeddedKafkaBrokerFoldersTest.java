package io.zerolayer.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The folders of the embedded broker: kept ports, and temporary folders of killed processes. */
class EmbeddedKafkaBrokerFoldersTest {

    @Test
    void aDataFolderKeepsItsPortsAndSaysSoWhenOneIsTaken(@TempDir Path data) throws Exception {
        int[] first = EmbeddedKafkaBroker.keptPorts(data);
        assertThat(EmbeddedKafkaBroker.keptPorts(data)).containsExactly(first);
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new java.net.InetSocketAddress("localhost", first[0]));
            assertThatThrownBy(() -> EmbeddedKafkaBroker.keptPorts(data))
                    .hasMessageContaining("Port " + first[0])
                    .hasMessageContaining("is another zerolayer serve using this folder?");
        }
    }

    @Test
    void theTemporaryFolderOfAProcessThatIsGoneIsRemovedAndALiveOnesIsKept() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path abandoned = temporaryFolder(gone.pid());
        Path live = temporaryFolder(ProcessHandle.current().pid());
        Path unowned = Files.createTempDirectory(EmbeddedKafkaBroker.TEMPORARY_PREFIX);
        try {
            EmbeddedKafkaBroker.removeAbandonedTemporaryFolders();
            assertThat(abandoned).doesNotExist();
            assertThat(live).exists();
            assertThat(unowned).exists(); // no owner recorded: not ours to judge
        } finally {
            for (Path p : new Path[] {live, unowned}) {
                Files.deleteIfExists(p.resolve(EmbeddedKafkaBroker.OWNER_FILE));
                Files.deleteIfExists(p.resolve("logs/x"));
                Files.deleteIfExists(p.resolve("logs"));
                Files.deleteIfExists(p);
            }
        }
    }

    private static Path temporaryFolder(long ownerPid) throws Exception {
        Path dir = Files.createTempDirectory(EmbeddedKafkaBroker.TEMPORARY_PREFIX);
        Files.writeString(dir.resolve(EmbeddedKafkaBroker.OWNER_FILE), Long.toString(ownerPid));
        Files.createDirectories(dir.resolve("logs"));
        Files.writeString(dir.resolve("logs/x"), "data");
        return dir;
    }
}

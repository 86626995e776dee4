package io.zerolayer.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The folders of the embedded broker: kept ports, and temporary folders of killed processes. */
class BrokerDataFoldersTest {

    @Test
    void aDataFolderKeepsItsPortsAndSaysSoWhenOneIsTaken(@TempDir Path data) throws Exception {
        int[] first = BrokerDataFolders.keptPorts(data);
        assertThat(BrokerDataFolders.keptPorts(data)).containsExactly(first);
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new java.net.InetSocketAddress("localhost", first[0]));
            assertThatThrownBy(() -> BrokerDataFolders.keptPorts(data))
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
        Path unowned = Files.createTempDirectory(BrokerDataFolders.TEMPORARY_PREFIX);
        try {
            BrokerDataFolders.removeAbandonedTemporaryFolders();
            assertThat(abandoned).doesNotExist();
            assertThat(live).exists();
            assertThat(unowned).exists(); // no owner recorded: not ours to judge
        } finally {
            for (Path p : new Path[] {live, unowned}) {
                Files.deleteIfExists(p.resolve(BrokerDataFolders.OWNER_FILE));
                Files.deleteIfExists(p.resolve("logs/x"));
                Files.deleteIfExists(p.resolve("logs"));
                Files.deleteIfExists(p);
            }
        }
    }

    private static Path temporaryFolder(long ownerPid) throws Exception {
        Path dir = Files.createTempDirectory(BrokerDataFolders.TEMPORARY_PREFIX);
        Files.writeString(dir.resolve(BrokerDataFolders.OWNER_FILE), Long.toString(ownerPid));
        Files.createDirectories(dir.resolve("logs"));
        Files.writeString(dir.resolve("logs/x"), "data");
        return dir;
    }
}

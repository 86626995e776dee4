package io.zerolayer.operators.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.door.InvalidRequestException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.flink.api.common.state.MapStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;

/**
 * A command on the control topic, broadcast to every classifier and executor slot. JSON:
 *
 * <pre>
 * {"command": "clear-cache"}
 * {"command": "reload-contracts"}                          re-read zerolayer.contracts.file
 * {"command": "reload-contracts", "contracts": "version: 2\n…"}   use this tasks.yaml
 * {"command": "reload-tenants"}                            re-read zerolayer.tenants.file
 * </pre>
 *
 * Tenants are only ever re-read from the file: keys never travel over Kafka.
 */
public class ControlCommand {
    public static final String CLEAR_CACHE = "clear-cache";
    public static final String RELOAD_CONTRACTS = "reload-contracts";
    public static final String RELOAD_TENANTS = "reload-tenants";

    /**
     * Broadcast state of the control stream: key {@code contracts} holds the tasks.yaml in force,
     * so a restored job keeps contracts reloaded before the checkpoint.
     */
    public static final MapStateDescriptor<String, String> STATE =
            new MapStateDescriptor<>("zerolayer-control", Types.STRING, Types.STRING);

    static final String CONTRACTS_KEY = "contracts";
    private static final ObjectMapper JSON = new ObjectMapper();

    public String command;

    /** Inline tasks.yaml for reload-contracts, or null to re-read the configured file. */
    public String contracts;

    public ControlCommand() {}

    public ControlCommand(String command, String contracts) {
        this.command = command;
        this.contracts = contracts;
    }

    /** Parses one control record; an unreadable one becomes command {@code invalid: …}. */
    public static ControlCommand parse(byte[] value) {
        try {
            JsonNode root = JSON.readTree(value == null ? new byte[0] : value);
            String command = root == null ? null : root.path("command").asText(null);
            if (RELOAD_TENANTS.equals(command)) {
                return new ControlCommand(command, null);
            }
            if (CLEAR_CACHE.equals(command) || RELOAD_CONTRACTS.equals(command)) {
                return new ControlCommand(
                        command,
                        root.hasNonNull("contracts") ? root.get("contracts").asText() : null);
            }
            return new ControlCommand(
                    "invalid: unknown command '"
                            + (command == null ? null : InvalidRequestException.excerpt(command))
                            + "'",
                    null);
        } catch (IOException e) {
            return new ControlCommand(
                    "invalid: not JSON ("
                            + InvalidRequestException.excerpt(
                                    new String(value, StandardCharsets.UTF_8))
                            + ")",
                    null);
        }
    }

    public byte[] toJson() {
        var node = JSON.createObjectNode().put("command", command);
        if (contracts != null) {
            node.put("contracts", contracts);
        }
        return node.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return command
                + (contracts == null ? "" : " (" + contracts.length() + " chars of contracts)");
    }
}

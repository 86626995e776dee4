package io.zerolayer.operators.flink;

import io.zerolayer.gpu.hardware.HardwareFingerprint;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.flink.configuration.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hardware an executor slot compiles for. Detected per slot, so each TaskManager of a mixed
 * cluster compiles for its own; or named by the TaskManager's own config.yaml where detection
 * cannot tell machines apart (an A100 40 GB and 80 GB), which overrides what the job was submitted
 * with.
 */
final class TaskManagerHardware {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagerHardware.class);

    /**
     * The keys of {@code HardwareOptions.HARDWARE_PROFILE} and {@code HARDWARE_PROFILES_FILE}, read
     * from the TaskManager's own configuration as well as the job's.
     */
    static final String HARDWARE_PROFILE_KEY = "zerolayer.hardware-profile";

    static final String HARDWARE_PROFILES_FILE_KEY = "zerolayer.hardware-profiles.file";

    private TaskManagerHardware() {}

    /** The configuration a task's TaskManager started with (its config.yaml); empty where none. */
    static Configuration configuration(
            org.apache.flink.api.common.functions.RuntimeContext context) {
        if (context
                instanceof
                org.apache.flink.streaming.api.operators.StreamingRuntimeContext streaming) {
            return streaming.getTaskManagerRuntimeInfo().getConfiguration();
        }
        return new Configuration();
    }

    /**
     * @param taskManager the TaskManager's own configuration
     * @param jobSetting the job's hardware-profile setting ({@code auto} or a profile id)
     * @param jobProfilesYaml the job's extra hardware profiles, or null
     */
    static HardwareFingerprint resolve(
            Configuration taskManager, String jobSetting, String jobProfilesYaml) {
        String setting = taskManager.getString(HARDWARE_PROFILE_KEY, jobSetting);
        if (!setting.equals(jobSetting)) {
            LOG.info(
                    "This TaskManager's configuration names hardware profile {} (the job's: {})",
                    setting,
                    jobSetting);
        }
        String profilesFile = taskManager.getString(HARDWARE_PROFILES_FILE_KEY, null);
        return HardwareFingerprint.resolve(
                setting,
                HardwareProfiles.builtInWith(
                        profilesFile == null ? jobProfilesYaml : read(profilesFile)));
    }

    private static String read(String file) {
        try {
            return Files.readString(Path.of(file));
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "Cannot read this TaskManager's " + HARDWARE_PROFILES_FILE_KEY + " " + file, e);
        }
    }
}

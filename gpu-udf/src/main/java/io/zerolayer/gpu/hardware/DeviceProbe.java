package io.zerolayer.gpu.hardware;

import java.util.List;

/** Reads the devices of this machine. */
public interface DeviceProbe {
    /** The devices seen; empty when this kind of device is absent or cannot be read. */
    List<DeviceReport> probe();
}

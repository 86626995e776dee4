package io.zerolayer.operators.tenants;

/** A tenants file that cannot be used; the message names the file, the entry and the fix. */
public class TenantRegistryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TenantRegistryException(String message) {
        super(message);
    }

    public TenantRegistryException(String message, Throwable cause) {
        super(message, cause);
    }
}
